package io.windowpane.parentdemo;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.windowpane.config.EngineConfig;
import io.windowpane.redis.RedisEngine;
import io.windowpane.spring.RateLimited;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Lettuce class, method and field that the compiled classes of windowpane-redis (and of
 * windowpane-config and the starter, which refer to none: they reach Redis through the engine's
 * provider) refer to exists, with the same descriptor, in the Lettuce this application runs on
 * (Spring Boot's). windowpane
 * is compiled against Lettuce 7.x; a reference to a 7-only API links only when first executed,
 * so the HTTP test alone would miss those on paths it does not take (Cluster, passwords). This
 * reads the constant pools of the class files, the references the JVM would link, and looks each
 * one up by reflection.
 */
class LettuceLinkageTest {

  private static final String LETTUCE = "io/lettuce/";

  @Test
  void everyLettuceReferenceOfWindowpane_existsInBootsLettuce() throws Exception {
    Set<String> references = new TreeSet<>();
    for (Class<?> module : List.of(RedisEngine.class, EngineConfig.class, RateLimited.class)) {
      references.addAll(lettuceReferences(codeSourceOf(module))); // redis, config, starter
    }
    assertThat(references).as("references to Lettuce found").hasSizeGreaterThan(50);
    List<String> missing = new ArrayList<>();
    for (String reference : references) {
      if (!links(reference)) {
        missing.add(reference);
      }
    }
    assertThat(missing).as("Lettuce APIs that windowpane uses and Lettuce "
        + RedisClient.class.getPackage().getImplementationVersion() + " lacks").isEmpty();
  }

  /** The jar or class directory {@code type} was loaded from. */
  private static Path codeSourceOf(Class<?> type) throws URISyntaxException {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  /**
   * "C owner", "M owner name descriptor" and "F owner name" for every class, method and field
   * reference to Lettuce in the class files under {@code location}.
   */
  private static Set<String> lettuceReferences(Path location) throws IOException {
    Set<String> out = new TreeSet<>();
    if (Files.isDirectory(location)) {
      try (Stream<Path> files = Files.walk(location)) {
        for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))
            ::iterator) {
          out.addAll(references(Files.readAllBytes(file)));
        }
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        for (JarEntry entry : (Iterable<JarEntry>) jar.stream()::iterator) {
          if (entry.getName().endsWith(".class")) {
            try (InputStream in = jar.getInputStream(entry)) {
              out.addAll(references(in.readAllBytes()));
            }
          }
        }
      }
    }
    return out;
  }

  /** The Lettuce references in one class file's constant pool (JVMS 4.4). */
  private static Set<String> references(byte[] classFile) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
    in.readInt(); // magic
    in.readUnsignedShort(); // minor
    in.readUnsignedShort(); // major
    int count = in.readUnsignedShort();
    int[] tag = new int[count];
    String[] utf8 = new String[count];
    int[] first = new int[count];
    int[] second = new int[count];
    for (int i = 1; i < count; i++) {
      tag[i] = in.readUnsignedByte();
      switch (tag[i]) {
        case 1 -> utf8[i] = in.readUTF();
        case 3, 4 -> in.readInt();
        case 5, 6 -> { // long and double take two entries
          in.readLong();
          i++;
        }
        case 7, 8, 16, 19, 20 -> first[i] = in.readUnsignedShort();
        case 9, 10, 11, 12, 17, 18 -> {
          first[i] = in.readUnsignedShort();
          second[i] = in.readUnsignedShort();
        }
        case 15 -> {
          in.readUnsignedByte();
          first[i] = in.readUnsignedShort();
        }
        default -> throw new IOException("unknown constant pool tag " + tag[i]);
      }
    }
    Set<String> out = new TreeSet<>();
    for (int i = 1; i < count; i++) {
      if (tag[i] == 7 && utf8[first[i]].startsWith(LETTUCE)) {
        out.add("C " + utf8[first[i]]);
      } else if (tag[i] == 9 || tag[i] == 10 || tag[i] == 11) { // field, method, interface method
        String owner = utf8[first[first[i]]];
        int nameAndType = second[i];
        if (owner.startsWith(LETTUCE)) {
          out.add((tag[i] == 9 ? "F " : "M ") + owner + " " + utf8[first[nameAndType]]
              + (tag[i] == 9 ? "" : " " + utf8[second[nameAndType]]));
        }
      }
    }
    return out;
  }

  private static boolean links(String reference) {
    String[] parts = reference.split(" ");
    Class<?> owner;
    try {
      owner = Class.forName(parts[1].replace('/', '.'), false,
          LettuceLinkageTest.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
    return switch (parts[0]) {
      case "C" -> true;
      case "F" -> hasField(owner, parts[2]);
      default -> hasMethod(owner, parts[2], parts[3]);
    };
  }

  private static boolean hasField(Class<?> type, String name) {
    for (Class<?> k : supertypes(type)) {
      for (Field f : k.getDeclaredFields()) {
        if (f.getName().equals(name)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean hasMethod(Class<?> type, String name, String descriptor) {
    if (name.equals("<init>")) {
      for (Constructor<?> c : type.getDeclaredConstructors()) {
        if (MethodType.methodType(void.class, c.getParameterTypes()).toMethodDescriptorString()
            .equals(descriptor)) {
          return true;
        }
      }
      return false;
    }
    for (Class<?> k : supertypes(type)) {
      for (Method m : k.getDeclaredMethods()) {
        if (m.getName().equals(name) && MethodType.methodType(m.getReturnType(),
            m.getParameterTypes()).toMethodDescriptorString().equals(descriptor)) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code type}, its superclasses and all its interfaces, then Object. */
  private static List<Class<?>> supertypes(Class<?> type) {
    List<Class<?>> out = new ArrayList<>();
    Set<Class<?>> seen = new HashSet<>();
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(type));
    while (!todo.isEmpty()) {
      Class<?> k = todo.pop();
      if (seen.add(k)) {
        out.add(k);
        if (k.getSuperclass() != null) {
          todo.add(k.getSuperclass());
        }
        todo.addAll(List.of(k.getInterfaces()));
      }
    }
    if (seen.add(Object.class)) {
      out.add(Object.class);
    }
    return out;
  }
}
