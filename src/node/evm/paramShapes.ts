/**
 * What each read method of the node takes, checked before it runs, as geth and Anvil check it: an address that is
 * not 20 bytes, a hash that is not 32, a block that is neither a tag nor a number is -32602 naming the position,
 * never an answer for whatever the text happened to be (`eth_getBalance("not-an-address")` answered 0x0). The
 * sandbox answers every read from the latest state, so a valid block is only checked, not used. Methods not listed
 * check their own params (the call objects, user operations, the test and keyed methods).
 */
import type { RpcMethod } from "../jsonRpc.js";
import type { EvmNodeContext } from "./context.js";
import { addressParam, blockParam, booleanParam, dataParam, hashParam, quantityParam } from "./params.js";

type Check = (method: string, params: unknown[], index: number) => unknown;
/** A check, and whether the param may be left out (as geth's optional params and the tag `latest` default). */
type Shape = ReadonlyArray<[Check, "required" | "optional"]>;

const optional = (check: Check) => (method: string, params: unknown[], index: number) =>
  params[index] === undefined ? undefined : check(method, params, index);
const any: Check = () => undefined;

const SHAPES: Readonly<Record<string, Shape>> = {
  eth_getBalance: [
    [addressParam, "required"],
    [blockParam, "optional"],
  ],
  eth_getTransactionCount: [
    [addressParam, "required"],
    [blockParam, "optional"],
  ],
  eth_getCode: [
    [addressParam, "required"],
    [blockParam, "optional"],
  ],
  eth_getStorageAt: [
    [addressParam, "required"],
    [quantityParam, "required"],
    [blockParam, "optional"],
  ],
  eth_call: [
    [any, "optional"],
    [blockParam, "optional"],
  ],
  eth_estimateGas: [
    [any, "optional"],
    [blockParam, "optional"],
  ],
  eth_getBlockByNumber: [
    [any, "required"],
    [booleanParam, "optional"],
  ],
  eth_getBlockByHash: [
    [hashParam, "required"],
    [booleanParam, "optional"],
  ],
  eth_getTransactionByHash: [[hashParam, "required"]],
  eth_getTransactionReceipt: [[hashParam, "required"]],
  eth_getUserOperationByHash: [[hashParam, "required"]],
  eth_getUserOperationReceipt: [[hashParam, "required"]],
  eth_feeHistory: [
    [quantityParam, "required"],
    [blockParam, "optional"],
  ],
  eth_sendRawTransaction: [[dataParam, "required"]],
};

/**
 * The method table with each listed method's params checked first.
 *
 * @example withCheckedParams({ eth_getBalance })  // eth_getBalance(["nope"]) throws -32602
 */
export function withCheckedParams(methods: Readonly<Record<string, RpcMethod<EvmNodeContext>>>): Readonly<Record<string, RpcMethod<EvmNodeContext>>> {
  const checked: Record<string, RpcMethod<EvmNodeContext>> = {};
  for (const [name, method] of Object.entries(methods)) {
    const shape = SHAPES[name];
    checked[name] = !shape
      ? method
      : (params, ctx) => {
          for (const [index, [check, presence]] of shape.entries()) (presence === "optional" ? optional(check) : check)(name, params, index);
          return method(params, ctx);
        };
  }
  return checked;
}
