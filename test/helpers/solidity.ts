/** Compiles Solidity sources with solc (npm) for tests: the ABI and creation code of each contract. */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import solc from "solc";
import type { Abi, Hex } from "viem";

export interface Compiled {
  abi: Abi;
  bytecode: Hex;
}

/** Compiles one .sol file; throws with solc's messages if it does not compile. */
export function compileSolidity(file: string): Record<string, Compiled> {
  const name = basename(file);
  const input = {
    language: "Solidity",
    sources: { [name]: { content: readFileSync(file, "utf8") } },
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  return Object.fromEntries(
    Object.entries(output.contracts[name]!).map(([contract, c]) => [contract, { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex }]),
  );
}
