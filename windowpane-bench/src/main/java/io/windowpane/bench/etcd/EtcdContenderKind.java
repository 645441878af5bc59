package io.windowpane.bench.etcd;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;

/** The contenders of the etcd load generator, in the order they run and are reported. */
enum EtcdContenderKind {

  /** Plain {@code put} per call: the ceiling, decides nothing. */
  PUT("put", PutContender::new),
  /** {@code get}, then {@code Txn If mod_revision == r Then put}, retried up to N times. */
  NAIVE_CAS("naive-cas", NaiveCasContender::new),
  /** windowpane's etcd engine, {@code SLIDING_PANES}, {@code tryConsume(key, 1)}. */
  WINDOWPANE("windowpane-etcd", WindowpaneEtcdContender::new);

  private final String label;
  private final Function<EtcdSettings, EtcdContender> factory;

  EtcdContenderKind(String label, Function<EtcdSettings, EtcdContender> factory) {
    this.label = label;
    this.factory = factory;
  }

  String label() {
    return label;
  }

  /** A new contender on a client of its own. */
  EtcdContender create(EtcdSettings settings) {
    return factory.apply(settings);
  }

  static EtcdContenderKind of(String label) {
    return Arrays.stream(values())
        .filter(k -> k.label.equals(label.toLowerCase(Locale.ROOT)))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("contender: expected one of "
            + Arrays.stream(values()).map(EtcdContenderKind::label).toList() + ", got '"
            + label + "'"));
  }
}
