/**
 * Whether a webhook target reaches the sandbox itself. A delivery is an
 * unauthenticated POST made from inside the sandbox's machine, so a target
 * such as `http://127.0.0.1:<the sandbox's port>/_sandbox/reset` would let any
 * caller (a stranger's key has a project of its own in `--auth verify` mode)
 * drive the admin API. Such targets are refused when a subscription is written
 * and again, on the address actually resolved, when a delivery is made.
 *
 * "Reaches the sandbox": the host is a loopback name or address, an unspecified
 * address (0.0.0.0, ::, which connect to this machine) or an address of one of
 * this machine's interfaces, and the port is one the sandbox listens on. A
 * loopback receiver on another port (a local test endpoint) stays allowed.
 */
import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";

/** The ports the sandbox listens on: empty until it listens. Given by the assembly, which alone knows them. */
export type ListeningPorts = () => readonly number[];

// IPv4 entries also match their IPv4-mapped IPv6 forms (::ffff:127.0.0.1, ::ffff:7f00:1).
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("0.0.0.0", "ipv4");
LOOPBACK.addAddress("::1", "ipv6");
LOOPBACK.addAddress("::", "ipv6");

/** A URL's host name without the brackets of an IPv6 literal or a final dot, lowercase. */
function bareHost(hostname: string): string {
  const unbracketed = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return unbracketed.toLowerCase().replace(/\.$/, "");
}

/** Whether `address` (an IP address) is this machine: loopback, unspecified, or one of its interfaces' addresses. */
function isThisMachine(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (LOOPBACK.check(address, family === 6 ? "ipv6" : "ipv4")) return true;
  // Read on every check: interfaces come and go while the sandbox runs.
  const own = new BlockList();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) own.addAddress(entry.address, entry.family === "IPv6" ? "ipv6" : "ipv4");
  }
  return own.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** Whether `host` (a name or an IP address, as in a URL) names this machine without asking DNS. */
function namesThisMachine(host: string): boolean {
  const bare = bareHost(host);
  return bare === "localhost" || bare.endsWith(".localhost") || isThisMachine(bare);
}

/** The port a URL connects to: its own, or its scheme's default. */
export function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** Whether `url` reaches the sandbox by its host as written (names that need DNS are checked at delivery, see `addressReachesSandbox`). */
export function urlReachesSandbox(url: URL, ports: readonly number[]): boolean {
  return ports.includes(portOf(url)) && namesThisMachine(url.hostname);
}

/** Whether connecting to `address` (a resolved IP address) on `port` reaches the sandbox. */
export function addressReachesSandbox(address: string, port: number, ports: readonly number[]): boolean {
  return ports.includes(port) && isThisMachine(bareHost(address));
}
