/**
 * A call straight to a precompile's address runs the precompile, as on any node: no code is stored at 0x…01–0x…11,
 * yet `eth_call` to SHA-256 (0x…02) answers the digest, to the identity (0x…04) its input, to ecrecover (0x…01) the
 * signer. Checked against node:crypto and viem's own signer, not the EVM library.
 */
import { createHash } from "node:crypto";
import type { Sandbox } from "cdp-sandbox";
import { createPublicClient, type Hex, http, keccak256, type PublicClient, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, expect, it } from "vitest";
import { nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let client: PublicClient;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "node-call-precompile" });
  client = createPublicClient({ chain: baseSepolia, transport: http(await nodeUrlFor(sandbox, "base-sepolia")) }) as PublicClient;
});
afterAll(() => sandbox?.close());

const at = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Hex;

it("answers SHA-256 and the identity precompile called directly", async () => {
  const input = toHex("the sandbox runs precompiles");
  const digest = createHash("sha256")
    .update(Buffer.from(input.slice(2), "hex"))
    .digest("hex");
  expect((await client.call({ to: at(2), data: input })).data).toBe(`0x${digest}`);
  expect((await client.call({ to: at(4), data: input })).data).toBe(input);
});

it("recovers a signer through ecrecover called directly", async () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const hash = keccak256(toHex("signed"));
  const signature = await account.sign({ hash });
  const r = signature.slice(2, 66);
  const s = signature.slice(66, 130);
  const v = Number.parseInt(signature.slice(130, 132), 16);
  const data = `${hash}${v.toString(16).padStart(64, "0")}${r}${s}` as Hex;
  const { data: out } = await client.call({ to: at(1), data });
  expect(out?.slice(-40)).toBe(account.address.slice(2).toLowerCase());
});

it("leaves an address just past the precompiles as an empty account (no data)", async () => {
  expect((await client.call({ to: at(0x12), data: "0x1234" })).data).toBeUndefined();
});
