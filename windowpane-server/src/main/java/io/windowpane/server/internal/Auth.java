package io.windowpane.server.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * Bearer-token authentication. Tokens are kept as SHA-256 digests and a presented token is
 * compared with every one of them in constant time ({@link MessageDigest#isEqual}), so neither
 * the timing nor a heap dump gives a token away. No tokens configured means no authentication.
 */
public final class Auth {

  private static final String BEARER = "Bearer ";

  private final byte[][] digests;

  public Auth(List<String> tokens) {
    digests = new byte[tokens.size()][];
    for (int i = 0; i < digests.length; i++) {
      digests[i] = sha256(tokens.get(i));
    }
  }

  public boolean enabled() {
    return digests.length > 0;
  }

  /** Whether the {@code Authorization} header value carries a configured token. */
  public boolean accepts(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, 7)) {
      return false;
    }
    byte[] presented = sha256(authorization.substring(BEARER.length()).trim());
    boolean match = false;
    for (byte[] digest : digests) {
      match |= MessageDigest.isEqual(digest, presented);
    }
    return match;
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
