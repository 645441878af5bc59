package io.windowpane.server.internal;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.windowpane.Decision;
import io.windowpane.micrometer.ObservationEngineObserver;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.spi.EngineObserver;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;

/*
 * The service's traces: Micrometer's Observation API over windowpane's EngineObserver
 * (ObservationEngineObserver), turned into spans by Micrometer Tracing's OpenTelemetry bridge and
 * sent by the OpenTelemetry SDK over OTLP/HTTP (protobuf) to tracing.otlp.endpoint, in batches
 * (at most 1 s late; close() sends what is left). One span per decision of the HTTP API or the
 * Envoy RLS, joined to the caller's trace when the request carries a W3C traceparent, with one
 * child per backend call. Off (the default) the registry is Micrometer's NOOP one and the engine
 * gets EngineObserver.NONE: no observation is made, no span is built.
 */
public final class Tracing implements AutoCloseable {

  /** Tracing off: nothing is observed. */
  public static final Tracing OFF = new Tracing(ObservationRegistry.NOOP, EngineObserver.NONE,
      null);

  /** The resource's service.name of every span. */
  static final String SERVICE_NAME = "windowpane";
  /** How often a batch of ended spans is sent. */
  private static final Duration EXPORT_DELAY = Duration.ofSeconds(1);

  private final ObservationRegistry registry;
  private final EngineObserver observer;
  private final SdkTracerProvider provider; // null: off

  private Tracing(ObservationRegistry registry, EngineObserver observer,
      SdkTracerProvider provider) {
    this.registry = registry;
    this.observer = observer;
    this.provider = provider;
  }

  /** The tracing {@code config} asks for: OTLP export when it names an endpoint, else off. */
  public static Tracing of(ServerConfig config) {
    return config.otlpEndpoint().map(e -> otlp(e, config.samplingRatio())).orElse(OFF);
  }

  /** Spans sent to {@code endpoint} over OTLP/HTTP, {@code ratio} of new traces sampled. */
  static Tracing otlp(URI endpoint, double ratio) {
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
            AttributeKey.stringKey("service.name"), SERVICE_NAME))))
        .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(ratio)))
        .addSpanProcessor(BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder()
            .setEndpoint(endpoint.toString()).build()).setScheduleDelay(EXPORT_DELAY).build())
        .build();
    io.opentelemetry.api.trace.Tracer otel = provider.get("io.windowpane.server");
    OtelCurrentTraceContext current = new OtelCurrentTraceContext();
    OtelTracer tracer = new OtelTracer(otel, current, event -> { },
        new OtelBaggageManager(current, List.of(), List.of()));
    OtelPropagator propagator = new OtelPropagator(
        ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(
        new ObservationHandler.FirstMatchingCompositeObservationHandler(
            new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
            new DefaultTracingObservationHandler(tracer)));
    return new Tracing(registry, new ObservationEngineObserver(registry), provider);
  }

  /** What the engine reports its calls and decisions to. */
  public EngineObserver observer() {
    return observer;
  }

  /** Whether spans are made. */
  public boolean on() {
    return provider != null;
  }

  /**
   * A started decision observation named {@code name} for {@code limiter} (null: several),
   * child of the trace in {@code carrier}'s W3C {@code traceparent} (read with {@code header})
   * if it has one; {@link Observation#NOOP} when tracing is off.
   */
  public <C> Observation decision(C carrier, BiFunction<C, String, String> header, String name,
      String limiter, String engine) {
    if (provider == null) {
      return Observation.NOOP;
    }
    ReceiverContext<C> context = new ReceiverContext<>((c, key) -> header.apply(c, key));
    context.setCarrier(carrier);
    return ObservationEngineObserver.decision(registry, () -> context, name, limiter, engine);
  }

  /**
   * Ends {@code o}: with {@code failure} if there was one, and for an answer the service made
   * itself after the engine failed ({@code serviceDegraded}) with its outcome.
   */
  public static void end(Observation o, Decision serviceDegraded, Throwable failure) {
    if (o == Observation.NOOP) {
      return;
    }
    if (failure != null) {
      o.error(failure);
    }
    if (serviceDegraded != null) {
      o.lowCardinalityKeyValue(ObservationEngineObserver.OUTCOME,
          serviceDegraded.allowed() ? "allowed" : "denied")
          .lowCardinalityKeyValue(ObservationEngineObserver.DEGRADED, "true");
    }
    o.stop();
  }

  /** Sends the spans not sent yet (waiting up to 10 s) and stops. */
  @Override
  public void close() {
    if (provider != null) {
      provider.close();
    }
  }
}
