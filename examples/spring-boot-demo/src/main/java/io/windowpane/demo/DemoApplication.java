package io.windowpane.demo;

import io.windowpane.spring.RateLimited;
import io.windowpane.spring.WindowpaneCatalog;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** windowpane in a Spring Boot application: run it, then curl http://127.0.0.1:8080/hello. */
@SpringBootApplication
public class DemoApplication {

  public static void main(String[] args) {
    SpringApplication.run(DemoApplication.class, args);
  }

  @RestController
  static class Api {
    private final WindowpaneCatalog windowpane;

    Api(WindowpaneCatalog windowpane) {
      this.windowpane = windowpane;
    }

    /** 2 per 10 s per client address; the third gets 429 problem+json. */
    @GetMapping("/hello")
    @RateLimited(limiter = "api", key = "#request.remoteAddr")
    public String hello(HttpServletRequest request) {
      return "hello " + request.getRemoteAddr() + "\n";
    }

    /** In shadow mode: never refused; would-be denials are counted and logged. */
    @GetMapping("/search")
    @RateLimited(limiter = "search", key = "#q")
    public String search(@RequestParam String q) {
      return "results for " + q + "\n";
    }

    /** Limited by the path rule in application.yml, and counted. */
    @PostMapping("/login")
    public String login(@RequestParam String user) {
      long lastTenMinutes = windowpane.counter("logins").add(user);
      return user + " logged in " + lastTenMinutes + " times in 10 minutes\n";
    }
  }
}
