/**
 * The bulk path checks no account name against the contract entry by entry: the file's schema, checked first,
 * holds the contract's own pattern for it. Should the two part, this fails.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { packageRoot } from "../paths.js";

describe("an init file's account names", () => {
  it("are held by the file's schema to the pattern the contract gives createEvmAccount and createSolanaAccount", () => {
    const schema = JSON.parse(readFileSync(join(packageRoot, "schemas", "state-file.schema.json"), "utf8"));
    const contract = parse(readFileSync(join(packageRoot, "openapi.yaml"), "utf8"));
    const named = (operationId: string) => {
      for (const path of Object.values(contract.paths) as Array<Record<string, { operationId?: string; requestBody?: any }>>)
        for (const op of Object.values(path)) if (op.operationId === operationId) return op.requestBody.content["application/json"].schema.properties.name.$ref;
    };
    expect(named("createEvmAccount")).toBe("#/components/schemas/AccountNameField");
    expect(named("createSolanaAccount")).toBe("#/components/schemas/AccountNameField");
    expect(schema.definitions.name.pattern).toBe(contract.components.schemas.AccountNameField.pattern);
    for (const list of ["evmAccounts", "solanaAccounts"]) expect(schema.definitions[list].items.properties.name.$ref).toBe("#/definitions/name");
  });
});
