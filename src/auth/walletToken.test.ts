import { describe, expect, it } from "vitest";
import { createJtiRegistry } from "./walletToken.js";

describe("the wallet tokens' jti registry", () => {
  it("refuses a jti again for as long as its token is accepted", () => {
    const jtis = createJtiRegistry();
    expect(jtis.claim("a", 1_000, 1_090)).toBe(true);
    expect(jtis.claim("a", 1_000, 1_090)).toBe(false);
    expect(jtis.claim("a", 1_090, 1_180)).toBe(false); // the token's last second
    expect(jtis.claim("b", 1_089, 1_179)).toBe(true);
  });

  it("forgets the jtis of tokens no longer accepted, so it holds one token lifetime of them whatever the rate", () => {
    const jtis = createJtiRegistry();
    for (let i = 0; i < 5_000; i++) jtis.claim(`old-${i}`, 1_000, 1_090);
    expect(jtis.size).toBe(5_000);
    expect(jtis.claim("new", 1_091, 1_181)).toBe(true);
    expect(jtis.size).toBe(1);
  });
});
