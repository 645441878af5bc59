package io.windowpane.testkit.redis;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A minimal blocking RESP2 client over one plain socket, for test setup and assertions
 * ({@code PING}, {@code FLUSHALL}, {@code INFO}, {@code CONFIG GET}) without a Redis library.
 *
 * <p>{@link #command} maps replies to Java values: simple string and bulk string to
 * {@link String} (UTF-8), integer to {@link Long}, array to an unmodifiable {@link List} of these,
 * null bulk string and null array to {@code null}. A top-level error reply is thrown as
 * {@link RespErrorException}; an error nested in an array is returned as a
 * {@code RespErrorException} element. Values are text only: binary payloads that are not UTF-8
 * come back altered.
 *
 * <p>Not thread-safe: one command at a time per client. Every read and the connect are bounded by
 * the timeout given to {@link #connect}. After an I/O or protocol failure the connection is closed
 * (its position in the reply stream is unknown) and every later command fails.
 */
public final class RespClient implements AutoCloseable {

  /*
   * Design note. Requests are RESP arrays of bulk strings, the form Redis accepts for every
   * command, so no quoting rules apply. Replies are parsed recursively by their first byte; RESP3
   * types never arrive because the client never sends HELLO 3. A hand-written client (rather than
   * Lettuce or Jedis) keeps the testkit free of client libraries, so an engine's tests can use a
   * different client version than the fixture without conflicts.
   */

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RespClient(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = new BufferedOutputStream(socket.getOutputStream());
  }

  /**
   * Connects to {@code host:port}; {@code timeout} bounds the connect and every later read.
   *
   * @throws UncheckedIOException if the connection cannot be made in time
   */
  public static RespClient connect(String host, int port, Duration timeout) {
    int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(host, port), millis);
      socket.setSoTimeout(millis);
      socket.setTcpNoDelay(true);
      return new RespClient(socket);
    } catch (IOException e) {
      closeQuietly(socket);
      throw new UncheckedIOException("cannot connect to redis at " + host + ":" + port, e);
    }
  }

  /**
   * Sends one command and returns its parsed reply (see the class documentation for the types).
   *
   * @param args the command and its arguments, e.g. {@code "SET", "k", "v"}
   * @throws RespErrorException if the server answers with an error reply
   * @throws UncheckedIOException on an I/O failure, a timeout or a malformed reply
   */
  public Object command(String... args) {
    if (args.length == 0) {
      throw new IllegalArgumentException("args: expected a command name, got none");
    }
    try {
      writeCommand(args);
      Object reply = readReply();
      if (reply instanceof RespErrorException) {
        throw new RespErrorException(((RespErrorException) reply).getMessage());
      }
      return reply;
    } catch (IOException e) {
      closeQuietly(socket);
      throw new UncheckedIOException("redis command " + args[0] + " failed", e);
    }
  }

  /** Closes the connection; idempotent. */
  @Override
  public void close() {
    closeQuietly(socket);
  }

  private void writeCommand(String[] args) throws IOException {
    writeLine('*', args.length);
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      writeLine('$', bytes.length);
      out.write(bytes);
      out.write('\r');
      out.write('\n');
    }
    out.flush();
  }

  private void writeLine(char type, int n) throws IOException {
    out.write((type + Integer.toString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
  }

  private Object readReply() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new EOFException("connection closed by the server");
    }
    String line = readLine();
    switch (type) {
      case '+':
        return line;
      case '-':
        return new RespErrorException(line);
      case ':':
        return parseLong(line);
      case '$':
        return readBulk(parseLong(line));
      case '*':
        return readArray(parseLong(line));
      default:
        throw new IOException("protocol error: unexpected reply type '" + (char) type + "'");
    }
  }

  private String readBulk(long length) throws IOException {
    if (length == -1) {
      return null;
    }
    if (length < 0 || length > Integer.MAX_VALUE - 2) {
      throw new IOException("protocol error: bulk length " + length);
    }
    byte[] bytes = in.readNBytes((int) length + 2);
    if (bytes.length != length + 2) {
      throw new EOFException("connection closed inside a bulk string");
    }
    return new String(bytes, 0, (int) length, StandardCharsets.UTF_8);
  }

  private List<Object> readArray(long size) throws IOException {
    if (size == -1) {
      return null;
    }
    if (size < 0 || size > Integer.MAX_VALUE) {
      throw new IOException("protocol error: array size " + size);
    }
    List<Object> items = new ArrayList<>((int) Math.min(size, 1024));
    for (long i = 0; i < size; i++) {
      items.add(readReply());
    }
    return Collections.unmodifiableList(items);
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(32);
    for (int b = in.read(); b != '\r'; b = in.read()) {
      if (b < 0) {
        throw new EOFException("connection closed inside a reply line");
      }
      line.write(b);
    }
    if (in.read() != '\n') {
      throw new IOException("protocol error: CR not followed by LF");
    }
    return line.toString(StandardCharsets.UTF_8);
  }

  private static long parseLong(String line) throws IOException {
    try {
      return Long.parseLong(line);
    } catch (NumberFormatException e) {
      throw new IOException("protocol error: not an integer: " + line, e);
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // Nothing to do: the socket is unusable either way.
    }
  }
}
