/**
 * Wire facts of an OpenAPI operation: everything a client or server can
 * observe on the wire (method, path, parameters, bodies, statuses, schemas
 * with their constraints, security), with prose and examples removed and
 * $refs resolved, so two documents written differently can be compared.
 * Used by the conformance test and by scripts/conformance.mjs.
 */
const OUT_OF_SCOPE_TAGS = [];
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
/** Keys that carry no wire fact. */
const PROSE = new Set(["description", "summary", "title", "example", "examples", "externalDocs", "$comment", "deprecated", "discriminator"]);
const UNORDERED = new Set(["required", "enum", "type"]);
const ALTERNATIVES = new Set(["oneOf", "anyOf"]);

/** Every operation of `doc`, in document order: {operationId, method, path, tag, op, pathItem}. */
export function operationsOf(doc, { inScopeOnly = true } = {}) {
  const out = [];
  for (const [path, pathItem] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = pathItem?.[method];
      if (!op) continue;
      const tag = op.tags?.[0];
      if (inScopeOnly && OUT_OF_SCOPE_TAGS.includes(tag)) continue;
      out.push({ operationId: op.operationId, method: method.toUpperCase(), path, tag, op, pathItem });
    }
  }
  return out;
}

function resolvePointer(doc, ref) {
  if (!ref.startsWith("#/")) throw new Error(`external $ref not supported: ${ref}`);
  let node = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = node?.[key];
  }
  if (node === undefined) throw new MissingRef(ref);
  return node;
}

export class MissingRef extends Error {
  constructor(ref) {
    super(`unresolved $ref ${ref}`);
    this.ref = ref;
  }
}

const canon = (v) => JSON.stringify(v);

/** Resolves refs and strips prose; recursion is marked by how many levels up it points. */
function normalize(doc, node, stack = []) {
  if (Array.isArray(node)) return node.map((n) => normalize(doc, n, stack));
  if (node === null || typeof node !== "object") return node;
  if (typeof node.$ref === "string") {
    const at = stack.indexOf(node.$ref);
    if (at >= 0) return { $recursive: stack.length - at };
    const target = normalize(doc, resolvePointer(doc, node.$ref), [...stack, node.$ref]);
    const { $ref, ...siblings } = node;
    const extra = normalize(doc, siblings, stack);
    return Object.keys(extra).length ? { ...target, ...extra } : target;
  }
  const out = {};
  for (const key of Object.keys(node).sort()) {
    if (PROSE.has(key) || key.startsWith("x-")) continue;
    let value = node[key];
    if (key === "properties" || key === "patternProperties" || key === "$defs") {
      value = Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((k) => [k, normalize(doc, value[k], stack)]),
      );
    } else if (UNORDERED.has(key) && Array.isArray(value)) {
      value = [...value].map((v) => normalize(doc, v, stack)).sort((a, b) => (canon(a) < canon(b) ? -1 : canon(a) > canon(b) ? 1 : 0));
    } else if (ALTERNATIVES.has(key) && Array.isArray(value)) {
      value = value.map((v) => normalize(doc, v, stack)).sort((a, b) => (canon(a) < canon(b) ? -1 : canon(a) > canon(b) ? 1 : 0));
    } else {
      value = normalize(doc, value, stack);
    }
    out[key] = value;
  }
  // The discriminator is a wire fact only through its property name and its mapping keys.
  if (node.discriminator) {
    out.discriminator = { propertyName: node.discriminator.propertyName, mappingKeys: Object.keys(node.discriminator.mapping ?? {}).sort() };
  }
  return out;
}

function parameterFacts(doc, p) {
  const param = p.$ref ? resolvePointer(doc, p.$ref) : p;
  const name = param.in === "header" ? String(param.name).toLowerCase() : param.name;
  const facts = { name, in: param.in, required: param.in === "path" ? true : param.required === true };
  if (param.schema) facts.schema = normalize(doc, param.schema);
  if (param.content) facts.content = normalize(doc, param.content);
  for (const k of ["style", "explode", "allowReserved", "allowEmptyValue"]) if (param[k] !== undefined) facts[k] = param[k];
  return facts;
}

function contentFacts(doc, content) {
  if (!content) return undefined;
  return Object.fromEntries(
    Object.keys(content)
      .sort()
      .map((mt) => [mt, content[mt].schema ? normalize(doc, content[mt].schema) : {}]),
  );
}

function securityFacts(doc, op) {
  const requirements = op.security ?? doc.security ?? [];
  return requirements
    .map((req) =>
      Object.keys(req)
        .sort()
        .map((name) => {
          const scheme = doc.components?.securitySchemes?.[name];
          if (!scheme) return `${name}:undefined`;
          const { type, scheme: s, bearerFormat, in: where, name: headerName } = scheme;
          return `${name}:${[type, s, bearerFormat, where, headerName].filter(Boolean).join("/")}`;
        })
        .join("+"),
    )
    .sort();
}

/** The wire facts of one operation entry from `operationsOf`. */
function factsOf(doc, entry) {
  const { op, pathItem } = entry;
  const params = new Map();
  for (const p of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]) {
    const f = parameterFacts(doc, p);
    params.set(`${f.in}:${f.name}`, f);
  }
  let requestBody;
  if (op.requestBody) {
    const body = op.requestBody.$ref ? resolvePointer(doc, op.requestBody.$ref) : op.requestBody;
    requestBody = { required: body.required === true, content: contentFacts(doc, body.content) };
  }
  const responses = {};
  for (const status of Object.keys(op.responses ?? {}).sort()) {
    let r = op.responses[status];
    if (r.$ref) r = resolvePointer(doc, r.$ref);
    const facts = {};
    if (r.content) facts.content = contentFacts(doc, r.content);
    if (r.headers) {
      facts.headers = Object.fromEntries(
        Object.keys(r.headers)
          .sort()
          .map((h) => {
            const header = r.headers[h].$ref ? resolvePointer(doc, r.headers[h].$ref) : r.headers[h];
            return [h.toLowerCase(), { required: header.required === true, schema: header.schema ? normalize(doc, header.schema) : undefined }];
          }),
      );
    }
    responses[status] = facts;
  }
  return {
    method: entry.method,
    path: entry.path,
    operationId: entry.operationId,
    tag: entry.tag,
    security: securityFacts(doc, op),
    parameters: [...params.keys()].sort().map((k) => params.get(k)),
    requestBody,
    responses,
  };
}

/** Differences between two fact trees as "json.path: expected … got …" lines. */
function diffFacts(expected, actual, path = "", out = [], limit = 200) {
  if (out.length >= limit) return out;
  if (canon(expected) === canon(actual)) return out;
  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (isObj(expected) && isObj(actual)) {
    for (const k of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      if (!(k in actual)) out.push(`${path}.${k}: missing (reference has ${short(expected[k])})`);
      else if (!(k in expected)) out.push(`${path}.${k}: not in reference (ours has ${short(actual[k])})`);
      else diffFacts(expected[k], actual[k], `${path}.${k}`, out, limit);
    }
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    for (const [i, e] of expected.entries()) diffFacts(e, actual[i], `${path}[${i}]`, out, limit);
    return out;
  }
  out.push(`${path}: reference ${short(expected)} / ours ${short(actual)}`);
  return out;
}

function short(v) {
  const s = canon(v) ?? "undefined";
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/**
 * Compares every in-scope operation of `reference` with `ours`.
 * Returns {total, identical, results: [{operationId, tag, status: identical|different|missing|error, diffs}]}.
 */
export function compareDocuments(reference, ours, { filter = () => true, maxDiffs = 200 } = {}) {
  const oursByKey = new Map(operationsOf(ours, { inScopeOnly: false }).map((e) => [e.operationId, e]));
  const results = [];
  for (const entry of operationsOf(reference)) {
    if (!filter(entry)) continue;
    const mine = oursByKey.get(entry.operationId);
    if (!mine) {
      results.push({ operationId: entry.operationId, tag: entry.tag, status: "missing", diffs: [`${entry.method} ${entry.path} is not in our document`] });
      continue;
    }
    try {
      const diffs = diffFacts(factsOf(reference, entry), factsOf(ours, mine), "", [], maxDiffs);
      results.push({ operationId: entry.operationId, tag: entry.tag, status: diffs.length ? "different" : "identical", diffs });
    } catch (err) {
      results.push({ operationId: entry.operationId, tag: entry.tag, status: "error", diffs: [String(err.message ?? err)] });
    }
  }
  return { total: results.length, identical: results.filter((r) => r.status === "identical").length, results };
}
