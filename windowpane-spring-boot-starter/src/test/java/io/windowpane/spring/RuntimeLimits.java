package io.windowpane.spring;

import static io.windowpane.spring.Http.header;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Set;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;

/**
 * A {@code windowpane.*} property changed while the application runs, as Spring Cloud applies
 * one (a property source changes, then an {@code EnvironmentChangeEvent} names the keys), and
 * what both web stacks and both engines must then do: the next decision follows the new
 * permits, and the key's counts stay. Limiter {@code runtime} of application-demo.yml
 * (2 per 10 s), on {@code /runtime/{id}}.
 */
public final class RuntimeLimits {

  private static final String SOURCE = "changed at run time";
  private static final String PERMITS = "windowpane.limiters.runtime[0].permits";
  private static final String WINDOW = "windowpane.limiters.runtime[0].window";

  private RuntimeLimits() {}

  /** Sets {@code key} to {@code value} (null: back to the file's) and says so to the context. */
  static void change(ConfigurableApplicationContext context, String key, String value) {
    MutablePropertySources sources = context.getEnvironment().getPropertySources();
    @SuppressWarnings("unchecked")
    Map<String, Object> changed = sources.contains(SOURCE)
        ? (Map<String, Object>) sources.get(SOURCE).getSource() : new java.util.HashMap<>();
    if (value == null) {
      changed.remove(key);
    } else {
      changed.put(key, value);
    }
    if (!sources.contains(SOURCE)) {
      sources.addFirst(new MapPropertySource(SOURCE, changed));
    }
    context.publishEvent(new EnvironmentChangeEvent(context, Set.of(key)));
  }

  /** The scenario, on keys of its own ({@code prefix}...). */
  public static void propertyChangedAtRunTime(Http http, ConfigurableApplicationContext context,
      String prefix) {
    String a = "/runtime/" + prefix + "a";
    String b = "/runtime/" + prefix + "b";
    try {
      assertThat(http.get(a).statusCode()).isEqualTo(200);
      assertThat(http.get(a).statusCode()).isEqualTo(200);
      assertThat(http.get(a).statusCode()).isEqualTo(429);

      change(context, PERMITS, "4"); // raised: the 2 counted stay, 2 more fit
      HttpResponse<String> raised = http.get(a);
      assertThat(raised.statusCode()).isEqualTo(200);
      assertThat(header(raised, "RateLimit-Policy")).isEqualTo("\"runtime\";q=4;w=10");
      assertThat(header(raised, "RateLimit")).startsWith("\"runtime\";r=1;");
      assertThat(http.get(a).statusCode()).isEqualTo(200);
      HttpResponse<String> denied = http.get(a);
      assertThat(denied.statusCode()).isEqualTo(429);
      assertThat(denied.body()).contains("\"deniedBy\":{\"name\":\"runtime\",\"permits\":4,");

      change(context, PERMITS, "1"); // lowered: a key with 4 counted waits; a new key gets 1
      assertThat(http.get(a).statusCode()).isEqualTo(429);
      assertThat(http.get(b).statusCode()).isEqualTo(200);
      assertThat(http.get(b).statusCode()).isEqualTo(429);

      change(context, PERMITS, "0"); // invalid: refused, 1 stays in force
      HttpResponse<String> kept = http.get(b);
      assertThat(kept.statusCode()).isEqualTo(429);
      assertThat(header(kept, "RateLimit-Policy")).isEqualTo("\"runtime\";q=1;w=10");

      change(context, PERMITS, "1");
      change(context, WINDOW, "20s"); // another window: takes a restart, 1 per 10 s stays
      assertThat(header(http.get(b), "RateLimit-Policy")).isEqualTo("\"runtime\";q=1;w=10");
    } finally {
      change(context, WINDOW, null);
      change(context, PERMITS, null);
    }
    assertThat(context.getBean(WindowpaneCatalog.class).limiter("runtime").quota().limits()
        .get(0).permits()).isEqualTo(2);
  }
}
