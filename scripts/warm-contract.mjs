#!/usr/bin/env node
// Part of `npm run build`: compiles both contracts into the operation cache, with their request validators, so that
// start-up never parses them and no request waits for a validator to be compiled.
import { loadCompiledOperations } from "../dist/contract/compile.js";
import { adminSpecPath, defaultSpecPath } from "../dist/paths.js";

for (const spec of [defaultSpecPath, adminSpecPath]) {
  const operations = await loadCompiledOperations(spec, { withValidators: true });
  console.log(`contract: ${operations.length} operations compiled from ${spec}`);
}
