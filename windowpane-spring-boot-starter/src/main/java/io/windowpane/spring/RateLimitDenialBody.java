package io.windowpane.spring;

/**
 * The body of the 429 answer, for {@code @RateLimited} and the path rules alike. The starter's
 * default writes RFC 9457 problem details ({@code application/problem+json}); define a bean of
 * this type to write your own. Its headers ({@code RateLimit}, {@code RateLimit-Policy},
 * {@code Retry-After}) are set by the starter, named by {@code windowpane.response.headers.*}.
 * Called on the request's thread (an event loop on WebFlux): it must not block.
 */
@FunctionalInterface
public interface RateLimitDenialBody {

  /** The body for {@code denial} of a request to {@code path}. */
  Body body(RateLimitExceededException denial, String path);

  /** A body and its content type. */
  record Body(String contentType, String content) {}
}
