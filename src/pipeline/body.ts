/** Request bodies are JSON; a body that does not parse is a client mistake (400), never a 500. */
import { apiError } from "../errors/catalogue.js";

export function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  if (contentType && !/json/i.test(contentType)) {
    throw apiError("invalid_request", `Unsupported Content-Type '${contentType}': send the body as application/json.`);
  }
  const text = raw.toString("utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw apiError("invalid_request", `Malformed JSON body: ${(error as Error).message}.`);
  }
}
