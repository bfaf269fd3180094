/**
 * The typed-data criteria govern only the end-user signTypedData operation:
 * every operator is checked directly here (one holding and one failing case
 * each); end-users/accounts.test.ts checks them over HTTP.
 */
import { describe, expect, it } from "vitest";
import { criterionHolds } from "./criteria.js";
import type { PolicyFacts } from "./facts.js";

const facts: PolicyFacts = {
  kind: "typedData",
  domain: { name: "Permit2", chainId: 8453, verifyingContract: "0x000000000022D473030F116dDEE9F6B43aC78BA3" },
  types: { PermitSingle: [] },
  primaryType: "PermitSingle",
  message: {
    details: { token: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", amount: "5000000" },
    spender: "0x1111111111111111111111111111111111111111",
    memo: "invoice-42",
  },
};
const typesSpec = { types: { PermitSingle: [] }, primaryType: "PermitSingle" };

describe("typed-data criteria", () => {
  it.each([
    ["verifyingContract in", { type: "evmTypedDataVerifyingContract", addresses: ["0x000000000022d473030f116ddee9f6b43ac78ba3"], operator: "in" }, true],
    [
      "verifyingContract in (other)",
      { type: "evmTypedDataVerifyingContract", addresses: ["0x2222222222222222222222222222222222222222"], operator: "in" },
      false,
    ],
    [
      "verifyingContract not in",
      { type: "evmTypedDataVerifyingContract", addresses: ["0x2222222222222222222222222222222222222222"], operator: "not in" },
      true,
    ],
    [
      "verifyingContract not in (listed)",
      { type: "evmTypedDataVerifyingContract", addresses: ["0x000000000022D473030F116dDEE9F6B43aC78BA3"], operator: "not in" },
      false,
    ],
    [
      "field address in",
      {
        type: "evmTypedDataField",
        types: typesSpec,
        conditions: [{ path: "spender", addresses: ["0x1111111111111111111111111111111111111111"], operator: "in" }],
      },
      true,
    ],
    [
      "field address not in",
      {
        type: "evmTypedDataField",
        types: typesSpec,
        conditions: [{ path: "spender", addresses: ["0x1111111111111111111111111111111111111111"], operator: "not in" }],
      },
      false,
    ],
    ...([">", ">=", "<", "<=", "=="] as const).flatMap((operator) => [
      [
        `field numeric ${operator} holds`,
        {
          type: "evmTypedDataField",
          types: typesSpec,
          conditions: [
            { path: "details.amount", value: { ">": "4999999", ">=": "5000000", "<": "5000001", "<=": "5000000", "==": "5000000" }[operator], operator },
          ],
        },
        true,
      ],
      [
        `field numeric ${operator} fails`,
        {
          type: "evmTypedDataField",
          types: typesSpec,
          conditions: [{ path: "details.amount", value: { ">": "5000000", ">=": "5000001", "<": "5000000", "<=": "4999999", "==": "1" }[operator], operator }],
        },
        false,
      ],
    ]),
    ["field string match", { type: "evmTypedDataField", types: typesSpec, conditions: [{ path: "memo", match: "^invoice-[0-9]+$" }] }, true],
    ["field string no match", { type: "evmTypedDataField", types: typesSpec, conditions: [{ path: "memo", match: "^refund" }] }, false],
    [
      "field for another primary type",
      { type: "evmTypedDataField", types: { types: {}, primaryType: "Other" }, conditions: [{ path: "memo", match: "." }] },
      false,
    ],
  ] as Array<[string, object, boolean]>)("%s", (_name, criterion, expected) => {
    expect(criterionHolds(criterion as never, facts)).toBe(expected);
  });
});
