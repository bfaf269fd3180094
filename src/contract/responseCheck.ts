/**
 * The fast path of response validation (`--validate-responses`). prism checks an answer through its plumbing and,
 * on the first answer of each schema, merges the schema's `allOf`s before compiling it: ~20–45 ms for a policy's,
 * with every other request waiting. An answer this module can vouch for skips prism: a status the operation
 * declares by its exact code, with no declared headers, one plain media type that the answer's `content-type`
 * names, and a body that the schema as prism normalizes it (`outputSchema`, made at build time by compile.ts) accepts,
 * checked by the same compiled Ajv code prism would run. Anything else, and every failure, goes to prism, which
 * decides and writes the diagnostics.
 */
import type { IHttpOperation, IMediaTypeContent } from "@stoplight/types";
import { compileBodySchema, PLAIN_MEDIA_TYPE } from "./requestCheck.js";

type Validate = NonNullable<ReturnType<typeof compileBodySchema>>;

/** An answer's check: its one media type (lower case), and its body's check (null: prism checks no body there). */
interface AnswerCheck {
  mediaType: string;
  validate: Validate | null;
}

/** The checks of an operation's answers by status (undefined: prism decides), each made on first use. */
const checks = new WeakMap<IHttpOperation, Map<number, AnswerCheck | undefined>>();

function checkOf(op: IHttpOperation, status: number): AnswerCheck | undefined {
  let byStatus = checks.get(op);
  if (!byStatus) {
    byStatus = new Map();
    checks.set(op, byStatus);
  }
  if (byStatus.has(status)) return byStatus.get(status);
  let check: AnswerCheck | undefined;
  const response = op.responses.find((r) => r.code === String(status));
  const contents = response?.contents ?? [];
  if (response && (response.headers ?? []).length === 0 && contents.length === 1 && PLAIN_MEDIA_TYPE.test(contents[0]!.mediaType)) {
    const content = contents[0] as IMediaTypeContent & { outputSchema?: Record<string, unknown> | null };
    const mediaType = content.mediaType.toLowerCase();
    if (content.schema === undefined || content.outputSchema === null) check = { mediaType, validate: null };
    else if (content.outputSchema !== undefined && !JSON.stringify(content.outputSchema).includes('"$ref"')) {
      const validate = compileBodySchema(content.outputSchema);
      if (validate) check = { mediaType, validate };
    }
  }
  byStatus.set(status, check);
  return check;
}

/** True when prism would find no problem with this answer; false means "ask prism" (it may still pass it). */
export function certainlyValidResponse(op: IHttpOperation, res: { status: number; headers: Record<string, string>; body: unknown }): boolean {
  const check = checkOf(op, res.status);
  if (!check) return false;
  const contentType = res.headers["content-type"];
  if (contentType === undefined || contentType.split(";", 1)[0]!.trim().toLowerCase() !== check.mediaType) return false;
  return check.validate === null || check.validate(res.body);
}
