package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** The served OpenAPI document is docs/openapi.yaml, and it documents every route served. */
class OpenApiTest {

  @Test
  void servedDocument_isDocsOpenapiYaml_andDocumentsEveryRoute() throws Exception {
    try (WindowpaneServer server = WindowpaneServer.start(ServerConfig.defaults().withPort(0))) {
      Http.Reply served = new Http(server.url()).get("/v1/openapi.yaml");
      assertThat(served.status()).isEqualTo(200);
      assertThat(served.header("Content-Type").orElseThrow()).startsWith("application/yaml");
      String docs = Files.readString(Path.of("../docs/openapi.yaml"), StandardCharsets.UTF_8);
      assertThat(served.text()).isEqualTo(docs);

      Map<String, Object> document = new Yaml(new SafeConstructor(new LoaderOptions()))
          .load(docs);
      @SuppressWarnings("unchecked")
      Map<String, Map<String, Object>> paths = (Map<String, Map<String, Object>>)
          document.get("paths");
      List<String> documented = new ArrayList<>();
      paths.forEach((path, operations) -> operations.keySet().stream()
          .filter(op -> List.of("get", "post", "put", "delete", "patch").contains(op))
          .forEach(op -> documented.add(op.toUpperCase(Locale.ROOT) + " " + path)));
      assertThat(server.routes()).isNotEmpty();
      assertThat(documented).containsExactlyInAnyOrderElementsOf(server.routes());
    }
  }
}
