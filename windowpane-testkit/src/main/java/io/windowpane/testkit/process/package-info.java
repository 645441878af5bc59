/**
 * What the redis and etcd fixtures share: finding a server binary ({@link
 * io.windowpane.testkit.process.ServerBinary}) and running its process on free loopback ports
 * ({@link io.windowpane.testkit.process.ServerProcess}).
 */
package io.windowpane.testkit.process;
