/**
 * windowpane: sliding-window counters, rate limits and statistics. Exports the API
 * ({@code io.windowpane}) and the SPI that engines implement ({@code io.windowpane.spi});
 * everything under {@code io.windowpane.internal} stays inside the module. Depends on
 * {@code java.base} alone (logging through {@link System.Logger}). The configuration module,
 * not this one, finds engines with {@link java.util.ServiceLoader}.
 */
module io.windowpane {
  exports io.windowpane;
  exports io.windowpane.spi;
}
