package io.windowpane.etcd.internal;

/** A failed etcd call, classified by the seam so that the engine never sees client types. */
public final class SeamException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** What a caller may do about it. */
  public enum Kind {
    /** The request may not have reached etcd, or its answer was lost: retry may help. */
    TRANSIENT,
    /** The lease named in a put no longer exists: grant another and retry. */
    LEASE_GONE,
    /** The request was refused (too large, permission, bad argument): retrying cannot help. */
    REFUSED
  }

  private final Kind kind;

  public SeamException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
