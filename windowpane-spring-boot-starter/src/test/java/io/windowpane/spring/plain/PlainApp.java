package io.windowpane.spring.plain;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** An application with nothing of its own: only what the starter configures. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class PlainApp {
}
