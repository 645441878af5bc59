package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module's surface: it exports the API and the SPI and nothing else, needs only
 * {@code java.base}, and no public or protected member of an exported package mentions a type of
 * an unexported one (a user could not name it, and it would tie the API to the internals).
 */
class ModuleSurfaceTest {

  private static Path classes() throws URISyntaxException {
    return Path.of(Windowpane.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  @Test
  void theModule_exportsTheApiAndTheSpiOnly_andNeedsOnlyJavaBase() throws Exception {
    ModuleDescriptor d;
    try (InputStream in = Files.newInputStream(classes().resolve("module-info.class"))) {
      d = ModuleDescriptor.read(in);
    }

    assertThat(d.name()).isEqualTo("io.windowpane");
    assertThat(d.exports()).allSatisfy(e -> assertThat(e.isQualified()).isFalse());
    assertThat(d.exports().stream().map(ModuleDescriptor.Exports::source))
        .containsExactlyInAnyOrder("io.windowpane", "io.windowpane.spi");
    assertThat(d.opens()).isEmpty();
    assertThat(d.requires().stream().map(ModuleDescriptor.Requires::name))
        .containsExactly("java.base");
  }

  @Test
  void atRunTime_theModuleHidesItsInternals() {
    // the default test run is on the module path (surefire patches the tests into the module);
    // the Lincheck run, and a -Dtest run that reaches it, are on the class path
    assumeTrue(Windowpane.class.getModule().isNamed(), "on the class path");
    Module m = Windowpane.class.getModule();

    assertThat(m.getName()).isEqualTo("io.windowpane");
    assertThat(m.isExported("io.windowpane")).isTrue();
    assertThat(m.isExported("io.windowpane.spi")).isTrue();
    assertThat(m.isExported("io.windowpane.internal")).isFalse();
    assertThat(m.isExported("io.windowpane.internal.local")).isFalse();
  }

  @Test
  void noPublicMemberOfTheApiOrTheSpi_mentionsAnInternalType() throws Exception {
    List<String> leaks = new ArrayList<>();
    for (Class<?> c : exportedClasses()) {
      if (!Modifier.isPublic(c.getModifiers())) {
        continue;
      }
      check(leaks, c.getName() + " extends", c.getGenericSuperclass());
      for (Type t : c.getGenericInterfaces()) {
        check(leaks, c.getName() + " implements", t);
      }
      for (Method m : c.getDeclaredMethods()) {
        if (visible(m) && !m.isSynthetic()) {
          check(leaks, m.toString(), m.getGenericReturnType());
          for (Type t : m.getGenericParameterTypes()) {
            check(leaks, m.toString(), t);
          }
        }
      }
      for (Constructor<?> k : c.getDeclaredConstructors()) {
        if (visible(k)) {
          for (Type t : k.getGenericParameterTypes()) {
            check(leaks, k.toString(), t);
          }
        }
      }
      for (Field f : c.getDeclaredFields()) {
        if (visible(f)) {
          check(leaks, f.toString(), f.getGenericType());
        }
      }
    }

    assertThat(leaks).isEmpty();
  }

  private static boolean visible(Member m) {
    return Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers());
  }

  private static void check(List<String> leaks, String where, Type t) {
    if (t != null && t.getTypeName().contains("io.windowpane.internal")) {
      leaks.add(where + ": " + t.getTypeName());
    }
  }

  /** Every class compiled into {@code io.windowpane} and {@code io.windowpane.spi}. */
  private static List<Class<?>> exportedClasses() throws Exception {
    List<Class<?>> out = new ArrayList<>();
    for (String pkg : List.of("io.windowpane", "io.windowpane.spi")) {
      Path dir = classes().resolve(pkg.replace('.', '/'));
      Set<String> names;
      try (Stream<Path> files = Files.list(dir)) {
        names = files.map(p -> p.getFileName().toString())
            .filter(n -> n.endsWith(".class") && !n.equals("package-info.class"))
            .collect(Collectors.toSet());
      } catch (IOException e) {
        throw new AssertionError("cannot list " + dir, e);
      }
      for (String n : names) {
        out.add(Class.forName(pkg + "." + n.substring(0, n.length() - ".class".length()), false,
            Windowpane.class.getClassLoader()));
      }
    }
    assertThat(out).hasSizeGreaterThan(40);
    return out;
  }
}
