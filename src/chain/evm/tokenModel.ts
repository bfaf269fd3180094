/**
 * The table's ERC-20 tokens as the EVM sees them: a modelled contract at each token's address that reads and
 * moves the ledger's balances, so what bytecode moves is what the balance APIs, the SQL tables and webhooks see.
 * The node's `eth_call` of a token answers from the same reads.
 */
import {
  decodeFunctionData,
  domainSeparator,
  encodeAbiParameters,
  encodeErrorResult,
  type Hex,
  pad,
  parseAbi,
  recoverTypedDataAddress,
  serializeSignature,
} from "viem";
import type { ProjectTx } from "../../store/store.js";
import { APPROVAL_TOPIC, allowanceOf, executePermit, type LedgerLog, moveToken, permitNonceOf, setAllowance } from "./ledger.js";
import { evmBalanceOf, evmTotalHeld } from "./balances.js";
import { type EvmToken, evmTokensOf, NATIVE_TOKEN_ADDRESS } from "../tokens.js";
import { type ModelledCall, type ModelledContract, ModelledRevert } from "./modelled.js";

const tokenAbi = parseAbi([
  "function balanceOf(address owner) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function decimals() view returns (uint8)",
  "function symbol() view returns (string)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function nonces(address owner) view returns (uint256)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function transferFrom(address from, address to, uint256 value) returns (bool)",
  "function approve(address spender, uint256 value) returns (bool)",
  "function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)",
]);

/** EIP-2612's `Permit`, as the token's `permit` checks it (x402's gas-sponsoring extension signs the same). */
export const PERMIT_TYPES = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

const uint = (n: bigint) => encodeAbiParameters([{ type: "uint256" }], [n]);
const TRUE = uint(1n);
const topicOf = (a: string) => pad(a.toLowerCase() as Hex, { size: 32 });
/** A revert with `Error(message)`, as the real tokens' require statements give. */
const fail = (message: string) =>
  new ModelledRevert(encodeErrorResult({ abi: parseAbi(["error Error(string)"]), errorName: "Error", args: [message] }), message);

type TokenCall = ReturnType<typeof decodeFunctionData<typeof tokenAbi>>;

/** Decodes a call of a token's function, or undefined for calldata no token function takes (a token then reverts). */
export function decodeTokenCall(data: Hex): TokenCall | undefined {
  try {
    return decodeFunctionData({ abi: tokenAbi, data });
  } catch {
    return undefined;
  }
}

/**
 * A token's answer to a view function, or undefined when it is not one the token has (it reverts).
 * `version`, `DOMAIN_SEPARATOR` and `nonces` exist only on tokens with an EIP-712 domain (Circle's FiatToken).
 */
export function readToken(store: ProjectTx, network: string, chainId: number, token: EvmToken, call: TokenCall): Hex | undefined {
  switch (call.functionName) {
    case "balanceOf":
      return uint(evmBalanceOf(store, network, token.address, call.args[0]));
    case "allowance":
      return uint(allowanceOf(store, network, token.address, call.args[0], call.args[1]));
    case "totalSupply":
      return uint(evmTotalHeld(store, network, token.address));
    case "decimals":
      return encodeAbiParameters([{ type: "uint8" }], [token.decimals]);
    case "symbol":
      return encodeAbiParameters([{ type: "string" }], [token.symbol]);
    case "name":
      return encodeAbiParameters([{ type: "string" }], [token.name]);
  }
  if (!token.eip712) return undefined;
  switch (call.functionName) {
    case "version":
      return encodeAbiParameters([{ type: "string" }], [token.eip712.version]);
    case "nonces":
      return uint(permitNonceOf(store, network, token.address, call.args[0]));
    case "DOMAIN_SEPARATOR":
      return domainSeparator({ domain: { ...token.eip712, chainId, verifyingContract: token.address } });
  }
  return undefined;
}

/** Moves `amount` of a token between holders on the ledger, with its Transfer log; reverts when `from` holds too little. */
function move(call: ModelledCall, token: EvmToken, from: string, to: string, amount: bigint): void {
  if (evmBalanceOf(call.store, call.network, token.address, from) < amount) throw fail("ERC20: transfer amount exceeds balance");
  const logs: LedgerLog[] = [];
  moveToken(call.store, call.network, token.address, from, to, amount, logs);
  for (const log of logs) call.emit(log.topics, log.data);
}

async function writeToken(call: ModelledCall, token: EvmToken, decoded: TokenCall): Promise<Hex> {
  const { store, network, caller } = call;
  switch (decoded.functionName) {
    case "transfer": {
      move(call, token, caller, decoded.args[0], decoded.args[1]);
      return TRUE;
    }
    case "transferFrom": {
      const [from, to, amount] = decoded.args;
      const allowed = allowanceOf(store, network, token.address, from, caller);
      if (allowed < amount) throw fail("ERC20: transfer amount exceeds allowance");
      setAllowance(store, network, token.address, from, caller, allowed - amount);
      move(call, token, from, to, amount);
      return TRUE;
    }
    case "approve": {
      const [spender, amount] = decoded.args;
      setAllowance(store, network, token.address, caller, spender, amount);
      call.emit([APPROVAL_TOPIC, topicOf(caller), topicOf(spender)], uint(amount));
      return TRUE;
    }
    case "permit": {
      if (!token.eip712) throw new ModelledRevert("0x");
      const [owner, spender, value, deadline, v, r, s] = decoded.args;
      if (deadline < BigInt(Math.floor(call.clock.now() / 1000))) throw fail("FiatTokenV2: permit is expired");
      const nonce = permitNonceOf(store, network, token.address, owner);
      let signer: string;
      try {
        signer = await recoverTypedDataAddress({
          domain: { ...token.eip712, chainId: call.chainId, verifyingContract: token.address },
          types: PERMIT_TYPES,
          primaryType: "Permit",
          message: { owner, spender, value, nonce, deadline },
          signature: serializeSignature({ r, s, v: BigInt(v) }),
        });
      } catch {
        throw fail("ECRecover: invalid signature");
      }
      if (signer.toLowerCase() !== owner.toLowerCase()) throw fail("EIP2612: invalid signature");
      executePermit(store, network, token.address, owner, spender, value, nonce);
      call.emit([APPROVAL_TOPIC, topicOf(owner), topicOf(spender)], uint(value));
      return "0x";
    }
  }
  throw new ModelledRevert("0x");
}

function tokenContract(token: EvmToken): ModelledContract {
  return {
    address: token.address,
    gas: 30_000n,
    async call(call) {
      // The tokens are not payable, and have no fallback: a call they do not know reverts without data.
      if (call.value > 0n) throw new ModelledRevert("0x");
      const decoded = decodeTokenCall(call.data);
      if (!decoded) throw new ModelledRevert("0x");
      const read = readToken(call.store, call.network, call.chainId, token, decoded);
      if (read !== undefined) return read;
      if (call.isStatic) throw new ModelledRevert("0x");
      return writeToken(call, token, decoded);
    },
  };
}

const byNetwork = new Map<string, readonly ModelledContract[]>();

/** The modelled ERC-20 contracts of a network's token table. */
export function tokenContractsOf(network: string): readonly ModelledContract[] {
  let made = byNetwork.get(network);
  if (!made) {
    made = evmTokensOf(network)
      .filter((t) => t.address !== NATIVE_TOKEN_ADDRESS)
      .map(tokenContract);
    byNetwork.set(network, made);
  }
  return made;
}
