/**
 * Webhook targets inside the host's own networks. A delivery is a POST made from the sandbox's machine, and its
 * answer is kept in the subscription's event log, so a caller who may subscribe can read the host's loopback and
 * private services through it (server-side request forgery). A sandbox on loopback serves one developer, whose
 * receivers live there, so they are allowed; bound to another address, anyone who reaches it could be that caller,
 * so such targets are refused unless the operator allows them (`--allow-private-webhook-targets`). The URL's host is
 * checked when the subscription is written, and the address a name resolves to at each delivery (send.ts).
 */
import { BlockList, isIP } from "node:net";

// IPv4 ranges also match their IPv4-mapped IPv6 forms (::ffff:10.0.0.1).
const RANGES: Array<[name: string, address: string, prefix: number, family: "ipv4" | "ipv6"]> = [
  ["this network (0.0.0.0/8)", "0.0.0.0", 8, "ipv4"],
  ["loopback (127.0.0.0/8)", "127.0.0.0", 8, "ipv4"],
  ["private (10.0.0.0/8)", "10.0.0.0", 8, "ipv4"],
  ["private (172.16.0.0/12)", "172.16.0.0", 12, "ipv4"],
  ["private (192.168.0.0/16)", "192.168.0.0", 16, "ipv4"],
  ["shared address space (100.64.0.0/10)", "100.64.0.0", 10, "ipv4"],
  ["link-local (169.254.0.0/16)", "169.254.0.0", 16, "ipv4"],
  ["multicast or reserved (224.0.0.0/3)", "224.0.0.0", 3, "ipv4"],
  ["unspecified or loopback (::/127)", "::", 127, "ipv6"],
  ["unique local (fc00::/7)", "fc00::", 7, "ipv6"],
  ["link-local (fe80::/10)", "fe80::", 10, "ipv6"],
  ["multicast (ff00::/8)", "ff00::", 8, "ipv6"],
  ["NAT64 (64:ff9b::/96)", "64:ff9b::", 96, "ipv6"],
];

const LISTS = RANGES.map(([name, address, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  return { name, list };
});

/** The range `address` (an IP address, brackets allowed) falls in when it is not a public address; undefined otherwise. */
export function privateRangeOf(address: string): string | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return undefined;
  const type = family === 6 ? "ipv6" : "ipv4";
  return LISTS.find(({ list }) => list.check(bare, type))?.name;
}

/** Why a URL's host (as written, before DNS) is inside the host's networks: an address in such a range, or a localhost name. */
export function privateHostOf(hostname: string): string | undefined {
  const bare = hostname.toLowerCase().replace(/\.$/, "");
  if (bare === "localhost" || bare.endsWith(".localhost")) return "loopback (localhost)";
  return privateRangeOf(bare);
}
