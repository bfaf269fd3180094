#!/usr/bin/env node
/** Writes openapi.yaml from contract-parts/*.yaml (used while the contract is written area by area). */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mergeParts, partFiles } from "./lib/merge.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { document, problems } = mergeParts(partFiles(join(root, "contract-parts")));
for (const p of problems) console.error(`merge: ${p}`);
writeFileSync(join(root, "openapi.yaml"), document.toString({ lineWidth: 0 }));
console.log(`wrote openapi.yaml (${problems.length} problems)`);
process.exit(problems.length ? 1 : 0);
