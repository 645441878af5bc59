package io.windowpane.testkit.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback echo server for the proxy's tests: writes back every byte it reads and, on end of
 * stream, half-closes and closes its side. One daemon thread per connection; {@link #close()}
 * closes everything.
 */
final class EchoServer implements AutoCloseable {

  private final ServerSocket listener;
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();

  EchoServer() throws IOException {
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "echo-server-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  @Override
  public void close() throws IOException {
    listener.close();
    for (Socket socket : connections) {
      socket.close();
    }
  }

  private void acceptLoop() {
    while (true) {
      try {
        Socket socket = listener.accept();
        connections.add(socket);
        Thread echo = new Thread(() -> echo(socket), "echo-server-connection");
        echo.setDaemon(true);
        echo.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void echo(Socket socket) {
    byte[] buffer = new byte[8192];
    try (socket) {
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      for (int n; (n = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
      }
      socket.shutdownOutput();
    } catch (IOException e) {
      // the client or the proxy reset the connection
    } finally {
      connections.remove(socket);
    }
  }
}
