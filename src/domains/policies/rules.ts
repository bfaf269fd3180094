/**
 * Checks of a policy beyond its schema, each failure naming the rule:
 * regular expressions must compile under RE2, numbers must be integers,
 * ABIs must be usable, and signEvmHash rules take no criteria.
 */
import { RE2JS } from "re2js";
import { apiError } from "../../errors/catalogue.js";
import { criteriaOf, type Criterion, type Rule } from "./model.js";

function fail(ruleIndex: number, message: string): never {
  throw apiError("invalid_request", `rules[${ruleIndex}]: ${message}`);
}

function checkRegex(ruleIndex: number, where: string, pattern: unknown) {
  if (typeof pattern !== "string") fail(ruleIndex, `${where} must be a regular expression`);
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    fail(ruleIndex, `${where} is not a valid RE2 regular expression (${(error as Error).message})`);
  }
}

function checkInteger(ruleIndex: number, where: string, value: unknown) {
  if (typeof value !== "string" || !/^[0-9]+$/.test(value)) fail(ruleIndex, `${where} must be a non-negative integer in a string`);
}

function checkCriterion(ruleIndex: number, criterionIndex: number, c: Criterion) {
  const where = `criteria[${criterionIndex}] (${c.type})`;
  switch (c.type) {
    case "evmMessage":
    case "solMessage":
      return checkRegex(ruleIndex, `${where}.match`, c.match);
    case "solValue":
      return checkInteger(ruleIndex, `${where}.solValue`, c.solValue);
    case "splValue":
      return checkInteger(ruleIndex, `${where}.splValue`, c.splValue);
    case "evmTypedDataField":
      for (const [i, cond] of c.conditions.entries()) {
        if ("match" in cond) checkRegex(ruleIndex, `${where}.conditions[${i}].match`, cond.match);
      }
      return;
    case "evmData": {
      if (Array.isArray(c.abi) && !c.abi.some((item) => item.type === "function")) fail(ruleIndex, `${where}.abi has no functions`);
      const names = Array.isArray(c.abi) ? new Set(c.abi.flatMap((i) => (i.type === "function" ? [i.name] : []))) : undefined;
      for (const [i, cond] of c.conditions.entries()) {
        if (names && !names.has(cond.function)) fail(ruleIndex, `${where}.conditions[${i}].function ${cond.function} is not in the ABI`);
      }
      return;
    }
  }
}

export function checkRules(rules: Rule[]): void {
  rules.forEach((rule, ruleIndex) => {
    if (rule.operation === "signEvmHash" && criteriaOf(rule).length > 0) fail(ruleIndex, "signEvmHash rules take no criteria; use action reject to block it");
    for (const [i, c] of criteriaOf(rule).entries()) checkCriterion(ruleIndex, i, c);
  });
}
