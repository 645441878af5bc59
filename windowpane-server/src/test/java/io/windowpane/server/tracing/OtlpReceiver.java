package io.windowpane.server.tracing;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A small OTLP/HTTP traces receiver on a loopback port: it takes the protobuf
 * {@code ExportTraceServiceRequest}s an exporter POSTs to {@code /v1/traces}, decodes the spans
 * by hand (the fields of opentelemetry-proto's trace.proto that the tests read), and answers
 * with an empty {@code ExportTraceServiceResponse}.
 */
public final class OtlpReceiver implements AutoCloseable {

  /** One decoded span: ids in hex, attributes as text, status code (2: error). */
  public record Span(String traceId, String spanId, String parentSpanId, String name,
      Map<String, String> attributes, int statusCode) {

    public String attribute(String key) {
      return attributes.get(key);
    }
  }

  private final HttpServer server;
  public final List<Span> spans = new CopyOnWriteArrayList<>();
  public final List<String> serviceNames = new CopyOnWriteArrayList<>();

  public OtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/traces", exchange -> {
      try (InputStream in = exchange.getRequestBody()) {
        decodeRequest(CodedInputStream.newInstance(in.readAllBytes()));
        exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
        exchange.sendResponseHeaders(200, -1);
      } catch (IOException | RuntimeException e) {
        exchange.sendResponseHeaders(400, -1);
      } finally {
        exchange.close();
      }
    });
    server.start();
  }

  /** The URL to give an OTLP/HTTP exporter. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private void decodeRequest(CodedInputStream in) throws IOException {
    for (int tag; (tag = in.readTag()) != 0; ) {
      if (WireFormat.getTagFieldNumber(tag) == 1) { // resource_spans
        resourceSpans(CodedInputStream.newInstance(in.readByteArray()));
      } else {
        in.skipField(tag);
      }
    }
  }

  private void resourceSpans(CodedInputStream in) throws IOException {
    for (int tag; (tag = in.readTag()) != 0; ) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> { // resource
          Map<String, String> attributes = new LinkedHashMap<>();
          CodedInputStream r = CodedInputStream.newInstance(in.readByteArray());
          for (int t; (t = r.readTag()) != 0; ) {
            if (WireFormat.getTagFieldNumber(t) == 1) {
              keyValue(CodedInputStream.newInstance(r.readByteArray()), attributes);
            } else {
              r.skipField(t);
            }
          }
          serviceNames.add(attributes.get("service.name"));
        }
        case 2 -> scopeSpans(CodedInputStream.newInstance(in.readByteArray()));
        default -> in.skipField(tag);
      }
    }
  }

  private void scopeSpans(CodedInputStream in) throws IOException {
    for (int tag; (tag = in.readTag()) != 0; ) {
      if (WireFormat.getTagFieldNumber(tag) == 2) { // spans
        spans.add(span(CodedInputStream.newInstance(in.readByteArray())));
      } else {
        in.skipField(tag);
      }
    }
  }

  private static Span span(CodedInputStream in) throws IOException {
    String traceId = "";
    String spanId = "";
    String parent = "";
    String name = "";
    Map<String, String> attributes = new LinkedHashMap<>();
    int status = 0;
    for (int tag; (tag = in.readTag()) != 0; ) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> traceId = hex(in.readBytes());
        case 2 -> spanId = hex(in.readBytes());
        case 4 -> parent = hex(in.readBytes());
        case 5 -> name = in.readString();
        case 9 -> keyValue(CodedInputStream.newInstance(in.readByteArray()), attributes);
        case 15 -> {
          CodedInputStream s = CodedInputStream.newInstance(in.readByteArray());
          for (int t; (t = s.readTag()) != 0; ) {
            if (WireFormat.getTagFieldNumber(t) == 3) {
              status = s.readEnum();
            } else {
              s.skipField(t);
            }
          }
        }
        default -> in.skipField(tag);
      }
    }
    return new Span(traceId, spanId, parent, name, attributes, status);
  }

  /** A KeyValue whose AnyValue is a string, bool, int or double, as text. */
  private static void keyValue(CodedInputStream in, Map<String, String> into) throws IOException {
    String key = null;
    String value = null;
    for (int tag; (tag = in.readTag()) != 0; ) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> key = in.readString();
        case 2 -> {
          CodedInputStream v = CodedInputStream.newInstance(in.readByteArray());
          for (int t; (t = v.readTag()) != 0; ) {
            switch (WireFormat.getTagFieldNumber(t)) {
              case 1 -> value = v.readString();
              case 2 -> value = Boolean.toString(v.readBool());
              case 3 -> value = Long.toString(v.readInt64());
              case 4 -> value = Double.toString(v.readDouble());
              default -> v.skipField(t);
            }
          }
        }
        default -> in.skipField(tag);
      }
    }
    if (key != null) {
      into.put(key, value);
    }
  }

  private static String hex(ByteString bytes) {
    return HexFormat.of().formatHex(bytes.toByteArray());
  }

  /**
   * The spans as an indented tree, children under their parent in start order, with the
   * windowpane attributes and an error mark: what docs/observability.md shows.
   */
  public String tree() {
    StringBuilder out = new StringBuilder();
    List<Span> all = new ArrayList<>(spans);
    for (Span s : all) {
      if (all.stream().noneMatch(p -> p.spanId().equals(s.parentSpanId()))) {
        print(s, all, 0, out);
      }
    }
    return out.toString();
  }

  private static void print(Span s, List<Span> all, int depth, StringBuilder out) {
    out.append("  ".repeat(depth)).append(s.name())
        .append(depth == 0 ? "  trace " + s.traceId() + (s.parentSpanId().isEmpty() ? ""
            : " parent " + s.parentSpanId()) : "");
    s.attributes().forEach((k, v) -> {
      if (k.startsWith("windowpane.")) {
        out.append("  ").append(k.substring("windowpane.".length())).append('=').append(v);
      }
    });
    if (s.statusCode() == 2) {
      out.append("  ERROR");
    }
    out.append('\n');
    for (Span c : all) {
      if (c.parentSpanId().equals(s.spanId())) {
        print(c, all, depth + 1, out);
      }
    }
  }
}
