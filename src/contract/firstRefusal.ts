/**
 * A refused body as far as its first refusal: prism gathers every problem of a body (Ajv's allErrors), so a policy
 * of 100 rules each matching none of a rule's 22 variants was walked whole, 33,000 problems, 2 s with the event loop
 * held, to say the first rule was wrong. The fast check stops at the first problem; the arrays on the way to it are
 * cut after the item that holds it, and prism describes that: the same first problem, the items before it, and
 * whatever else of the body is wrong outside those arrays.
 */

/**
 * `body` with every array on the way to `pointer` (a JSON pointer, Ajv's instancePath) cut after the item the
 * pointer goes through; `body` itself when no array is longer than that.
 *
 * @example cutAfter({ rules: [a, b, c] }, "/rules/0") // { rules: [a] }
 */
export function cutAfter(body: unknown, pointer: string): unknown {
  const steps = pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  return cut(body, steps, 0);
}

function cut(value: unknown, steps: readonly string[], at: number): unknown {
  if (at === steps.length || typeof value !== "object" || value === null) return value;
  const step = steps[at]!;
  if (Array.isArray(value)) {
    const index = Number(step);
    if (!Number.isInteger(index) || index < 0 || index >= value.length) return value;
    const item = cut(value[index], steps, at + 1);
    if (value.length === index + 1 && item === value[index]) return value;
    const kept = value.slice(0, index + 1);
    kept[index] = item;
    return kept;
  }
  if (!Object.hasOwn(value, step)) return value;
  const inner = (value as Record<string, unknown>)[step];
  const changed = cut(inner, steps, at + 1);
  if (changed === inner) return value;
  // defineProperty: a member named __proto__ stays a member.
  const copy = { ...(value as Record<string, unknown>) };
  Object.defineProperty(copy, step, { value: changed, enumerable: true, writable: true, configurable: true });
  return copy;
}
