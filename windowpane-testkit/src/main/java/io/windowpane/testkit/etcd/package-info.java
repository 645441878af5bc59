/**
 * A real single-member {@code etcd} for tests: {@link io.windowpane.testkit.etcd.EtcdServerExtension}
 * starts one per test class on free loopback ports and injects its
 * {@link io.windowpane.testkit.etcd.EtcdServer} handle.
 *
 * <p>The binary is found through the system property {@code windowpane.etcd}, the environment
 * variable {@code WINDOWPANE_ETCD}, the {@code PATH}, then {@code /usr/bin/etcd}. A missing binary
 * fails the test class; it never skips it.
 */
package io.windowpane.testkit.etcd;
