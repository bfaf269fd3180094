/**
 * The curve work of a job of an init file's accounts, the same code on the helper threads (which run its source
 * text: hence no name from outside its body, the libraries passed in) and on the main thread, which takes the next
 * job of the queue while it waits (deriveThreads.ts). The steps are crypto/evm.ts's evmAddressOf,
 * crypto/ed25519.ts's public key and chain/solana/addresses.ts's associated token address, with buffers reused.
 */

/** The libraries a deriver works with (loaded by path on a thread; the same modules on the main thread). */
export interface DeriverLibraries {
  secp256k1: { publicKeyCreate(privateKey: Uint8Array, compressed: boolean): Uint8Array };
  sodium: {
    crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
    crypto_core_ed25519_add(result: Uint8Array, p: Uint8Array, q: Uint8Array): void;
    crypto_hash_sha256(out: Uint8Array, input: Uint8Array): void;
  };
  keccak256(bytes: Uint8Array): Uint8Array;
  base58(bytes: Uint8Array): string;
  /** The associated token program's 32 bytes. */
  associatedTokenProgram: Uint8Array;
}

/** A job's answer: EVM addresses, or per Solana seed its address then its token accounts, with the public keys. */
export interface DerivedJob {
  addresses?: Array<string | null>;
  solana?: Array<string[] | null>;
  /** 32 bytes per seed of the job, in order. */
  publicKeys?: Uint8Array;
}

export type Deriver = (job: { keys?: Array<string | null>; seeds?: Uint8Array; tokenAccounts?: Array<Array<[Uint8Array, Uint8Array]> | null> }) => DerivedJob;

export function makeDeriver(libs: DeriverLibraries): Deriver {
  const { secp256k1, sodium, keccak256, base58 } = libs;
  const identity = new Uint8Array(32);
  identity[0] = 1;
  const scratch = new Uint8Array(32);
  const secretKey = new Uint8Array(64);
  // What a program address hashes: owner, token program, mint (the seeds), the bump, the associated token program
  // and a fixed text; one buffer, filled in place, hashed at once with libsodium's SHA-256 into one buffer
  // (node:crypto's one-shot hash costs twice as much a call on 118 bytes).
  const suffix = Buffer.concat([Buffer.from(libs.associatedTokenProgram), Buffer.from("ProgramDerivedAddress")]);
  const seeds = Buffer.alloc(97 + suffix.length);
  suffix.copy(seeds, 97);
  const digest = new Uint8Array(32);
  // libsodium's point addition decodes its operands as the Solana runtime decodes a program address; a point that
  // does not decode is an exception (one per token account at least), which needs no stack trace.
  const onCurve = (bytes: Uint8Array): boolean => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      sodium.crypto_core_ed25519_add(scratch, bytes, identity);
      return true;
    } catch {
      return false;
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
  const programAddress = (): string => {
    for (let bump = 255; bump >= 0; bump--) {
      seeds[96] = bump;
      sodium.crypto_hash_sha256(digest, seeds);
      if (!onCurve(digest)) return base58(digest);
    }
    throw new Error("no program address for these seeds");
  };
  // An EVM address is written into one buffer, "0x" then the hex of the key's hash, made upper case where the
  // checksum says, and read out as one string (a string built a character at a time left 40 pieces a key).
  const privateKey = Buffer.alloc(32);
  const text = Buffer.from("0x".padEnd(42, "0"), "latin1");
  const hex = text.subarray(2);
  const evmAddress = (key: string): string => {
    privateKey.write(key.slice(2), "hex");
    const hash = keccak256(secp256k1.publicKeyCreate(privateKey, false).subarray(1));
    for (let i = 0; i < 20; i++) {
      const high = hash[12 + i]! >> 4;
      const low = hash[12 + i]! & 15;
      hex[2 * i] = high < 10 ? 48 + high : 87 + high; // '0'-'9', 'a'-'f'
      hex[2 * i + 1] = low < 10 ? 48 + low : 87 + low;
    }
    const checksum = keccak256(hex);
    for (let i = 0; i < 40; i++) {
      // A letter is upper case when its nibble of the hash of the lowercase address is 8 or more.
      if (hex[i]! > 57 && ((checksum[i >> 1]! >> (i & 1 ? 0 : 4)) & 0xf) >= 8) hex[i] = hex[i]! - 32;
    }
    return text.toString("latin1");
  };
  return (job) => {
    if (job.keys) return { addresses: job.keys.map((key) => (key === null ? null : evmAddress(key))) };
    // Each account's public key goes back as bytes (a token account holds its owner's), all in one buffer.
    const publicKeys = new Uint8Array(job.seeds!.length);
    const solana = job.tokenAccounts!.map((tokenAccounts, i) => {
      if (tokenAccounts === null) return null;
      const owner = publicKeys.subarray(32 * i, 32 * i + 32);
      sodium.crypto_sign_seed_keypair(owner, secretKey, job.seeds!.subarray(32 * i, 32 * i + 32));
      const derived = [base58(owner)];
      seeds.set(owner, 0);
      for (const [mint, program] of tokenAccounts) {
        seeds.set(program, 32);
        seeds.set(mint, 64);
        derived.push(programAddress());
      }
      return derived;
    });
    return { solana, publicKeys };
  };
}
