/**
 * Decoding Solana instructions for `solData`: the known programs
 * (SystemProgram, TokenProgram, AssociatedTokenProgram) and Anchor-style IDLs
 * (8-byte discriminator, then borsh-encoded primitive arguments).
 */
import { getAddressDecoder } from "@solana/kit";
import { ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type SolanaInstruction } from "../../crypto/solanaInstructions.js";

export interface Idl {
  address: string;
  instructions: Array<{ name: string; discriminator: number[]; args: Array<{ name: string; type: string }> }>;
}

export interface DecodedInstruction {
  name: string;
  args: Record<string, unknown>;
}

function known(ix: SolanaInstruction, idl: string): DecodedInstruction | undefined {
  const d = Buffer.from(ix.data);
  if (idl === "SystemProgram" && ix.programId === SYSTEM_PROGRAM && d.length >= 12 && d.readUInt32LE(0) === 2)
    return { name: "transfer", args: { lamports: d.readBigUInt64LE(4) } };
  if (idl === "TokenProgram" && (ix.programId === TOKEN_PROGRAM || ix.programId === TOKEN_2022_PROGRAM) && d.length >= 9) {
    if (d[0] === 3) return { name: "transfer", args: { amount: d.readBigUInt64LE(1) } };
    if (d[0] === 12 && d.length >= 10) return { name: "transferChecked", args: { amount: d.readBigUInt64LE(1), decimals: d[9] } };
  }
  if (idl === "AssociatedTokenProgram" && ix.programId === ASSOCIATED_TOKEN_PROGRAM)
    return { name: d.length > 0 && d[0] === 1 ? "createIdempotent" : "create", args: {} };
  return undefined;
}

function borsh(d: Buffer, at: number, type: string): [unknown, number] | undefined {
  switch (type) {
    case "u8":
      return [d.readUInt8(at), 1];
    case "i8":
      return [d.readInt8(at), 1];
    case "u16":
      return [d.readUInt16LE(at), 2];
    case "i16":
      return [d.readInt16LE(at), 2];
    case "u32":
      return [d.readUInt32LE(at), 4];
    case "i32":
      return [d.readInt32LE(at), 4];
    case "u64":
      return [d.readBigUInt64LE(at), 8];
    case "i64":
      return [d.readBigInt64LE(at), 8];
    case "bool":
      return [d.readUInt8(at) !== 0, 1];
    case "pubkey":
    case "publicKey":
      return [getAddressDecoder().decode(d.subarray(at, at + 32)), 32];
    case "string": {
      const len = d.readUInt32LE(at);
      return [d.subarray(at + 4, at + 4 + len).toString("utf8"), 4 + len];
    }
  }
  return undefined;
}

function custom(ix: SolanaInstruction, idl: Idl): DecodedInstruction | undefined {
  if (idl.address !== ix.programId) return undefined;
  const d = Buffer.from(ix.data);
  for (const instruction of idl.instructions) {
    if (d.length < 8 || !instruction.discriminator.every((b, i) => d[i] === b)) continue;
    const args: Record<string, unknown> = {};
    let at = 8;
    try {
      for (const arg of instruction.args) {
        const read = borsh(d, at, arg.type);
        if (!read) return { name: instruction.name, args };
        args[arg.name] = read[0];
        at += read[1];
      }
    } catch {
      return undefined;
    }
    return { name: instruction.name, args };
  }
  return undefined;
}

export function decodeSolanaInstruction(ix: SolanaInstruction, idls: Array<string | Idl>): DecodedInstruction | undefined {
  for (const idl of idls) {
    const decoded = typeof idl === "string" ? known(ix, idl) : custom(ix, idl);
    if (decoded) return decoded;
  }
  return undefined;
}
