/**
 * Checks of a policy beyond its schema, each failure naming the rule:
 * at most 100 rules taking at most 8 MiB as JSON, regular expressions must
 * compile under RE2, numbers must be integers, ABIs must be usable, and
 * signEvmHash rules take no criteria.
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

/** A policy holds at most this many rules. */
const MAX_RULES = 100;
/** ...and its rules, serialized as JSON, at most this many bytes (8 MiB). */
export const MAX_RULES_BYTES = 8 * 1024 * 1024;

/** The limits of a policy as a whole: checked first, so an oversized policy is refused before any rule is read. */
export function checkPolicySize(rules: Rule[]): void {
  if (rules.length > MAX_RULES) throw apiError("invalid_request", `rules: a policy holds at most ${MAX_RULES} rules; this one has ${rules.length}.`);
  const bytes = Buffer.byteLength(JSON.stringify(rules), "utf8");
  if (bytes > MAX_RULES_BYTES) {
    throw apiError("invalid_request", `rules: a policy's rules may take at most 8 MiB (${MAX_RULES_BYTES} bytes) serialized; these take ${bytes}.`);
  }
}

export function checkRules(rules: Rule[]): void {
  checkPolicySize(rules);
  rules.forEach((rule, ruleIndex) => {
    if (rule.operation === "signEvmHash" && criteriaOf(rule).length > 0) fail(ruleIndex, "signEvmHash rules take no criteria; use action reject to block it");
    for (const [i, c] of criteriaOf(rule).entries()) checkCriterion(ruleIndex, i, c);
  });
}
