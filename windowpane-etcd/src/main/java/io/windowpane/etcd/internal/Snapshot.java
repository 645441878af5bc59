package io.windowpane.etcd.internal;

/**
 * A key as etcd answered it: its value (null when absent) and mod revision (0 when absent);
 * for a compare-and-put, whether the compare held (the put ran).
 */
public final class Snapshot {

  final byte[] value;
  final long modRevision;
  final boolean succeeded;
  /** The revision at which etcd answered (the value is current as of it); 0 if unknown. */
  final long revision;

  public Snapshot(byte[] value, long modRevision, boolean succeeded, long revision) {
    this.value = value;
    this.modRevision = modRevision;
    this.succeeded = succeeded;
    this.revision = revision;
  }
}
