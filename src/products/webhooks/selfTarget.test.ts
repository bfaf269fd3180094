/**
 * Which webhook targets reach the sandbox itself: this machine's loopback,
 * unspecified and interface addresses (in every spelling a URL normalises to)
 * on a port the sandbox listens on, the scheme's default port included.
 */
import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { addressReachesSandbox, urlReachesSandbox } from "./selfTarget.js";

const reaches = (url: string, ports: number[]) => urlReachesSandbox(new URL(url), ports);

describe("a target reaches the sandbox", () => {
  it("when its host is this machine, however spelled, and its port is the sandbox's", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "0x7f.1", "localhost", "LOCALHOST.", "hooks.localhost", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0", "[::]"]) {
      expect(reaches(`http://${host}:8080/_sandbox/reset`, [8080]), host).toBe(true);
    }
  });

  it("on the scheme's default port when the URL names none", () => {
    expect(reaches("http://127.0.0.1/_sandbox/reset", [80])).toBe(true);
    expect(reaches("https://localhost/_sandbox/reset", [443])).toBe(true);
    expect(reaches("https://localhost/_sandbox/reset", [80])).toBe(false);
  });

  it("at an address of one of this machine's interfaces", () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && !entry.internal && entry.family === "IPv4");
    if (!own) return; // a machine with loopback only: nothing more to check
    expect(reaches(`http://${own.address}:8080/`, [8080])).toBe(true);
    expect(addressReachesSandbox(own.address, 8080, [8080])).toBe(true);
  });

  it("not on another port of this machine, nor at another machine", () => {
    expect(reaches("http://127.0.0.1:9000/hooks", [8080])).toBe(false);
    expect(reaches("http://localhost:9000/hooks", [8080])).toBe(false);
    expect(reaches("http://203.0.113.7:8080/hooks", [8080])).toBe(false);
    // A name that needs DNS is judged on the addresses it resolves to, when the delivery is made.
    expect(reaches("http://hooks.example.com:8080/", [8080])).toBe(false);
    expect(addressReachesSandbox("203.0.113.7", 8080, [8080])).toBe(false);
    expect(addressReachesSandbox("::ffff:7f00:1", 8080, [8080])).toBe(true);
  });

  it("never before the sandbox listens (no port known yet)", () => {
    expect(reaches("http://127.0.0.1:8080/", [])).toBe(false);
  });
});
