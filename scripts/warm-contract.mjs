#!/usr/bin/env node
// Part of `npm run build`: compiles openapi.yaml into the operation cache so that start-up never parses it.
import { loadCompiledOperations } from "../dist/contract/compile.js";
import { defaultSpecPath } from "../dist/paths.js";

const operations = await loadCompiledOperations(defaultSpecPath);
console.log(`contract: ${operations.length} operations compiled from ${defaultSpecPath}`);
