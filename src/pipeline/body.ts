/** Request bodies are JSON; a body that does not parse is a client mistake (400), never a 500. */
import { apiError } from "../errors/catalogue.js";

/**
 * The deepest nesting a body may have. The contract's deepest bodies (typed
 * data, ABIs, policy rules) stay far below it; a body nested a million deep
 * held the event loop for seconds in the checks that walk it.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether arrays and objects nest deeper than `max` in JSON text: one pass, brackets inside strings ignored. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  if (contentType && !/json/i.test(contentType)) {
    throw apiError("invalid_request", `Unsupported Content-Type '${contentType}': send the body as application/json.`);
  }
  const text = raw.toString("utf8");
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw apiError("invalid_request", `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw apiError("invalid_request", `Malformed JSON body: ${(error as Error).message}.`);
  }
}
