// DNS rebinding guard. A web page the user visits can make their browser send requests to
// 127.0.0.1 under the page's own host name (its DNS answer changes to 127.0.0.1 after loading), and
// could then run code in the sandbox or start rollouts. The browser still sends the page's name in
// `Host`, so a server bound to loopback answers only requests addressed to a loopback name.
//
// A server bound to any other address (`0.0.0.0`, a cluster node's IP) is reached by names we cannot
// know (node names, aliases, load balancers) and is exposed to the network anyway: no check there.

const LOOPBACK_ADDRESS = /^(127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/i;
const LOOPBACK_NAME = /^(localhost|127(\.\d{1,3}){3}|::1)$/i;

export function isLoopbackAddress(address: string): boolean {
  return LOOPBACK_ADDRESS.test(address);
}

/** The host name of a `Host` header value, without port or IPv6 brackets, lower-cased. */
export function hostNameOf(header: string): string {
  const name = header.startsWith("[") ? header.slice(1, header.indexOf("]")) : header.replace(/:\d*$/, "");
  return name.replace(/\.$/, "").toLowerCase();
}

/**
 * Whether a request with this `Host` header may be answered by a server bound to `boundAddress`:
 * always for non-loopback binds; for loopback binds only loopback names (any port) or the bound address.
 */
export function hostAllowed(boundAddress: string, header: string | undefined): boolean {
  if (!isLoopbackAddress(boundAddress)) return true;
  if (!header) return false;
  const name = hostNameOf(header);
  return LOOPBACK_NAME.test(name) || name === boundAddress.toLowerCase();
}

export function hostRefusedMessage(header: string | undefined): string {
  return (
    `this server is bound to loopback and answers only requests addressed to localhost, 127.0.0.1 or ::1, ` +
    `not to host ${JSON.stringify(header ?? "")} (a web page may be trying to reach it by DNS rebinding)`
  );
}
