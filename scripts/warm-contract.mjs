#!/usr/bin/env node
// Part of `npm run build`: compiles both contracts into the operation cache, with their request validators, so that
// start-up never parses them and no request waits for a validator to be compiled; then removes the cache entries of
// earlier versions of the documents, which no start can read (they only made the package larger).
import { loadCompiledOperations, pruneContractCache } from "../dist/contract/compile.js";
import { adminSpecPath, defaultSpecPath } from "../dist/paths.js";

const specs = [defaultSpecPath, adminSpecPath];
for (const spec of specs) {
  const operations = await loadCompiledOperations(spec, { withValidators: true });
  console.log(`contract: ${operations.length} operations compiled from ${spec}`);
}
const removed = pruneContractCache(specs);
if (removed.length > 0) console.log(`contract: removed ${removed.length} cache entries of earlier documents`);
