package io.windowpane.server.internal;

/** The request bounds the service enforces: body size, key length, batch size. */
record Limits(int maxBodyBytes, int maxKeyLength, int maxBatch) {

  /** Checks a key from the request: 1 to {@code maxKeyLength} characters. */
  static String checkKey(String path, String key, int maxKeyLength) {
    if (key == null || key.isEmpty() || key.length() > maxKeyLength) {
      throw ApiError.invalid(path, path + " must be 1 to " + maxKeyLength
          + " characters long, was " + (key == null ? "missing" : key.length()));
    }
    return key;
  }
}
