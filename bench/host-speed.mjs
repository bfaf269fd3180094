#!/usr/bin/env node
/** `node bench/host-speed.mjs`: this host's speed now, as the benches' figures name it (bench/lib/hostSpeed.mjs). */
import { bareLoopSeconds } from "./lib/hostSpeed.mjs";

console.log(`host: the EVM library's bare 10M-gas loop in ${(await bareLoopSeconds()).toFixed(2)} s`);
