/**
 * Solana accounts as the RPC describes them, from the ledger: token mints
 * (owned by the SPL Token program) and funded wallets (owned by the System
 * program). Anything else does not exist here, as an unfunded address does not.
 */
import { createHash } from "node:crypto";
import { balanceOf, totalHeld } from "../../chain/ledger.js";
import { SOL, solanaTokenByMint } from "../../chain/solanaLedger.js";
import { toBase58 } from "../../crypto/solana.js";
import type { ProjectTx } from "../../store/store.js";
import { RpcError } from "../jsonRpc.js";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const U64_MAX = 2n ** 64n - 1n;
/** A rent-exempt account's rentEpoch, u64::MAX, written as the JSON integer the real RPC writes. */
const RENT_EXEMPT_EPOCH = U64_MAX;
/** Rent-exempt minimum of an 82-byte mint account. */
const MINT_ACCOUNT_LAMPORTS = 1_461_600n;
/** The sandbox's stand-in mint authority: any fixed key (the real ones belong to the issuers). */
const SANDBOX_MINT_AUTHORITY = createHash("sha256").update("cdp-sandbox:mint-authority").digest();

/** An SPL Token mint account's 82 bytes: authority option and key, supply, decimals, initialized, no freeze authority. */
function mintAccountData(supply: bigint, decimals: number): Buffer {
  const data = Buffer.alloc(82);
  data.writeUInt32LE(1, 0);
  SANDBOX_MINT_AUTHORITY.copy(data, 4);
  data.writeBigUInt64LE(supply < U64_MAX ? supply : U64_MAX, 36); // a mint's supply is a u64; the ledger's sums are not bounded
  data.writeUInt8(decimals, 44);
  data.writeUInt8(1, 45);
  return data; // freeze authority option (46..49) and key (50..81) stay zero: none
}

/**
 * The accounts the ledger can describe: the token mints of the network
 * (owned by the SPL Token program, supply = what the ledger holds) and
 * wallets holding SOL (owned by the System program, no data). Anything else
 * does not exist here, as an unfunded address does not on chain.
 */
export function accountInfo(store: ProjectTx, network: string, address: string, encoding = "base64") {
  if (encoding !== "base64" && encoding !== "base58") {
    throw new RpcError(-32602, `Invalid params: the sandbox answers getAccountInfo with encoding base64 or base58, not ${encoding}.`);
  }
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) throw new RpcError(-32602, `Invalid param: ${JSON.stringify(address)} is not a base-58 account address.`);
  const token = solanaTokenByMint(network, address);
  let owner: string;
  let data: Buffer;
  let lamports: bigint;
  if (token && token.mint !== SOL.mint) {
    const supply = totalHeld(store, network, token.mint);
    [owner, data, lamports] = [TOKEN_PROGRAM, mintAccountData(supply, token.decimals), MINT_ACCOUNT_LAMPORTS];
  } else {
    const balance = balanceOf(store, network, "native", address);
    if (balance === 0n) return null;
    [owner, data, lamports] = [SYSTEM_PROGRAM, Buffer.alloc(0), balance];
  }
  return {
    data: [encoding === "base58" ? toBase58(new Uint8Array(data)) : data.toString("base64"), encoding],
    executable: false,
    lamports,
    owner,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: data.length,
  };
}
