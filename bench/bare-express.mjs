#!/usr/bin/env node
/**
 * The baseline of `npm run bench`: bare Express 5 answering a small JSON body,
 * in its own process like the sandbox, so both are measured the same way.
 * Prints `port=N` once it listens.
 */
import express from "express";

const app = express();
app.get("/ping", (_req, res) => res.json({ ok: true }));
const server = app.listen(0, "127.0.0.1", () => process.stdout.write(`port=${server.address().port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
