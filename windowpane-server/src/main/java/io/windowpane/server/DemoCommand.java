package io.windowpane.server;

import io.windowpane.internal.demo.BurstDemo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code windowpane demo}: a burst of requests against an in-process quota, in the terminal. */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Runs a burst of requests against a quota of 5 per second and 12 per minute "
        + "on the in-process engine and prints one decision per line.")
final class DemoCommand implements Callable<Integer> {

  @Override
  public Integer call() throws Exception {
    BurstDemo.main(new String[0]);
    return 0;
  }
}
