/**
 * Faults between a client and a real server, on real sockets: {@link
 * io.windowpane.testkit.fault.FaultProxy} is a TCP proxy on a free loopback port that a test puts
 * between an engine's client (Lettuce, jetcd) and a {@code redis-server} or {@code etcd}, then
 * switches at run time to added latency, a black hole (a hung backend), dropped connections or
 * refused connects.
 */
package io.windowpane.testkit.fault;
