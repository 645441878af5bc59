package io.windowpane.etcd.internal;

/** The part of a key's stored state that its kind of store defines; single-threaded. */
interface Body {

  /** Appends the state to {@code out}. */
  void write(Bytes.Writer out);

  /** Replaces the state with what {@link #write} wrote. */
  void read(Bytes.Reader in);

  /** Forgets everything: the state of a key never seen. */
  void clear();
}
