/**
 * Requests the contract accepts, for any operation: path, query and header
 * parameters and the JSON body drawn by json-schema-faker from the
 * operation's schemas (with the run's seeded randomness), ids taken from
 * earlier answers where there are some (so reads find what creates made),
 * each candidate checked with the sandbox's own request validator.
 *
 * A draft is what the fuzzer means to send, before it is signed:
 *   { operationId, label, method, path, query, headers, body, contentType, auth, session, expect }
 * with `body` undefined, `{ json }` or `{ raw }` (a string or Buffer sent as is), and
 * `auth` = { bearer, wallet }: "api" | "other" | "endUser" | "none" or an attack name.
 */
import { createRequire } from "node:module";

const jsf = createRequire(import.meta.url)("json-schema-faker");

/** The faker draws only strings with a pattern or a format; structure is drawn here (its own is slow on large oneOf trees). */
const FAKER_OPTIONS = { failOnInvalidTypes: false, failOnInvalidFormat: false, maxLength: 256 };
/** Optional fields are filled with this probability, down to this depth. */
const OPTIONAL_PROBABILITY = 0.35;
const OPTIONAL_DEPTH = 4;

/** Response fields worth remembering: values a later request can name in its path. */
const HARVESTED = /^(?:id|address|name|userOpHash|bundleSlug|slug|asset)$|Id$/;
const POOL_SIZE = 16;

/**
 * Ids seen in answers, by field name and by field name and the operation's
 * tag (`address:EVM Accounts`; `id:<tag>` serves path parameters such as `{policyId}`).
 */
export function createPool(rng) {
  /** @type {Map<string, string[]>} */
  const values = new Map();
  const remember = (key, value) => {
    const list = values.get(key) ?? [];
    if (list.includes(value)) return;
    if (list.length < POOL_SIZE) list.push(value);
    else list[rng.int(POOL_SIZE)] = value;
    values.set(key, list);
  };
  const walk = (node, tag, depth) => {
    if (depth > 5 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node.slice(0, 3)) walk(item, tag, depth + 1);
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === "string" && value.length > 0 && value.length <= 200 && HARVESTED.test(key)) {
        remember(key, value);
        remember(`${key}:${tag}`, value);
      } else walk(value, tag, depth + 1);
    }
  };
  return {
    /** Remembers the ids of a 2xx answer of `op`. */
    harvest: (op, body) => walk(body, op.tag, 0),
    /** Values remembered for path parameter `name` of `op`, mostly from answers of the operation's own area. */
    candidates(op, name) {
      const own = [...(values.get(`${name}:${op.tag}`) ?? []), ...(/Id$/.test(name) ? (values.get(`id:${op.tag}`) ?? []) : [])];
      return own.length && rng.chance(0.8) ? own : [...(values.get(name) ?? []), ...own];
    },
    /** Any remembered value (an id of the wrong kind). */
    any() {
      const all = [...values.values()].flat();
      return all.length ? rng.pick(all) : undefined;
    },
  };
}

/**
 * Replaces absolute URLs in a generated body with the fuzzer's loopback sink
 * (webhook targets, x402 resources), so the sandbox never reaches another host.
 */
function localizeUrls(node, sinkUrl) {
  // The scheme stays (a contract may ask for https); the host becomes the sink's.
  if (typeof node === "string") return node.replace(/^([a-z][a-z0-9+.-]*:)\/\/[^/?#]*/i, (_, scheme) => `${scheme}//${new URL(sinkUrl).host}`);
  if (Array.isArray(node)) return node.map((n) => localizeUrls(n, sinkUrl));
  if (node && typeof node === "object") return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, localizeUrls(v, sinkUrl)]));
  return node;
}

const jsonContent = (op) => op.http.request?.body?.contents?.find((c) => /json/.test(c.mediaType));

/**
 * @param {{ validateRequest: Function, pruneRecursion: Function, rng: ReturnType<import("./fuzz-random.mjs").seededRandom>,
 *   pool: ReturnType<typeof createPool>, sinkUrl: string, sessions: Array<{ userId: string, walletSecretId: string }> }} deps
 */
export function createRequestMaker(deps) {
  const { rng, pool } = deps;
  const pruned = new WeakMap();
  /** The schema with recursive references cut (the compiled contract keeps them as cycles). */
  const prune = (schema) => {
    if (!schema || typeof schema !== "object") return { type: "string" };
    if (!pruned.has(schema)) pruned.set(schema, deps.pruneRecursion(schema));
    return pruned.get(schema);
  };

  /** A string for a pattern or format, from the seeded faker ("x" when it cannot make one). */
  function fakeString(schema) {
    if (schema.format === "uuid") return rng.uuid(); // the faker satisfies a uuid pattern or the uuid format, not both
    try {
      jsf.option({ ...FAKER_OPTIONS, random: rng.float }); // a process-wide singleton: the sandbox's fallback sets it too
      const { pattern, format, minLength, maxLength } = schema;
      return jsf.generate({ type: "string", pattern, format, minLength, maxLength });
    } catch {
      return "x";
    }
  }

  const word = (min = 1, max = min + 12) => {
    const letters = "abcdefghijklmnopqrstuvwxyz0123456789";
    return Array.from({ length: min + rng.int(Math.max(1, Math.min(max, min + 12) - min + 1)) }, () => letters[rng.int(letters.length)]).join("");
  };

  function number(s, integer) {
    const lo = s.exclusiveMinimum ?? s.minimum ?? (rng.chance(0.2) ? -1000 : 0);
    const hi = s.exclusiveMaximum ?? s.maximum ?? lo + 1000;
    let n = lo + rng.float() * (hi - lo);
    if (integer || s.multipleOf) n = Math.ceil(n / (s.multipleOf ?? 1)) * (s.multipleOf ?? 1);
    if (s.exclusiveMaximum !== undefined && n >= hi) n = integer ? hi - 1 : lo;
    if (s.exclusiveMinimum !== undefined && n <= lo) n = integer ? lo + 1 : hi;
    return n;
  }

  /** allOf members folded into one schema (properties and required united). */
  function fold(s) {
    if (!s.allOf) return s;
    const { allOf, ...rest } = s;
    const out = { ...rest, properties: { ...rest.properties }, required: [...(rest.required ?? [])] };
    for (const member of allOf) {
      const m = fold(member ?? {});
      Object.assign(out, { ...m, properties: Object.assign(out.properties, m.properties), required: [...out.required, ...(m.required ?? [])] });
    }
    if (Object.keys(out.properties).length === 0) delete out.properties; // no properties: the type is not inferred as object
    return out;
  }

  /** One value of `schema`, drawn with the run's randomness. */
  function sample(schema, depth = 0) {
    if (!schema || typeof schema !== "object" || depth > 12) return "x";
    const s = fold(schema);
    if (s.const !== undefined) return s.const;
    if (s.enum?.length) return rng.pick(s.enum);
    const choices = s.oneOf ?? s.anyOf;
    if (choices?.length) {
      const { oneOf: _o, anyOf: _a, ...rest } = s;
      return sample({ ...rest, ...fold(rng.pick(choices) ?? {}) }, depth);
    }
    const types = Array.isArray(s.type) ? s.type : [s.type ?? (s.properties ? "object" : s.items ? "array" : "string")];
    const type = rng.pick(types.length > 1 && rng.chance(0.9) ? types.filter((t) => t !== "null") : types);
    switch (type) {
      case "object": {
        const out = {};
        const required = new Set(s.required ?? []);
        for (const [name, prop] of Object.entries(s.properties ?? {})) {
          if (required.has(name) || (depth < OPTIONAL_DEPTH && rng.chance(OPTIONAL_PROBABILITY))) out[name] = sample(prop, depth + 1);
        }
        const extra = s.additionalProperties;
        if (!s.properties && extra && typeof extra === "object" && rng.chance(0.5)) out[word(3)] = sample(extra, depth + 1);
        return out;
      }
      case "array": {
        const min = s.minItems ?? 0;
        const max = Math.min(s.maxItems ?? min + 2, min + 2);
        return Array.from({ length: min + rng.int(max - min + 1) }, () => sample(s.items, depth + 1));
      }
      case "integer":
        return number(s, true);
      case "number":
        return number(s, false);
      case "boolean":
        return rng.chance(0.5);
      case "null":
        return null;
      default:
        return s.pattern || s.format ? fakeString(s) : word(s.minLength ?? 1, s.maxLength ?? 16);
    }
  }

  const exampleOf = (p) => p.examples?.find((e) => e.value !== undefined)?.value;

  /** A valid path value for parameter `p`: remembered, the contract's example, or drawn. */
  function pathValue(op, p, attempt, session) {
    if (session && p.name === "userId" && rng.chance(0.9)) return session.userId;
    const remembered = pool.candidates(op, p.name);
    if (remembered.length && attempt < 3 && rng.chance(0.8)) return rng.pick(remembered);
    if (attempt === 0 && exampleOf(p) !== undefined && rng.chance(0.3)) return String(exampleOf(p));
    return String(sample(prune(p.schema)));
  }

  function authFor(op) {
    const schemes = new Set(op.security.flat());
    const session = schemes.has("endUserAuth") && deps.sessions.length ? rng.pick(deps.sessions) : undefined;
    if (session && (!schemes.has("apiKeyAuth") || rng.chance(0.5))) {
      return { auth: { bearer: "endUser", wallet: op.walletAuth !== "none" && rng.chance(0.9) ? "endUser" : "none" }, session };
    }
    if (schemes.has("unauthenticated") && rng.chance(0.7)) return { auth: { bearer: "none", wallet: "none" } };
    const wallet = op.walletAuth === "required" || (op.walletAuth === "optional" && rng.chance(0.5)) ? "api" : "none";
    return { auth: { bearer: "api", wallet } };
  }

  /**
   * A request the contract accepts for `op`, as a draft (the last candidate if none passed the validator).
   * @returns {object}
   */
  function valid(op) {
    const { auth, session } = authFor(op);
    const http = op.http;
    const content = jsonContent(op);
    let draft;
    for (let attempt = 0; attempt < 8; attempt++) {
      const params = Object.fromEntries((http.request?.path ?? []).map((p) => [p.name, pathValue(op, p, attempt, session)]));
      // A sampled string may hold a lone surrogate, which has no UTF-8 to escape: it goes as U+FFFD, as the query's do.
      const path = `/platform${op.pathTemplate.replace(/\{([^}]+)\}/g, (_, name) => encodeURIComponent(String(params[name]).toWellFormed()))}`;
      const query = new URLSearchParams();
      for (const q of http.request?.query ?? []) {
        if (!q.required && (attempt > 4 || !rng.chance(0.3))) continue;
        const value = sample(prune(q.schema));
        for (const v of Array.isArray(value) ? value : [value]) query.append(q.name, String(v));
      }
      const headers = {};
      for (const h of http.request?.headers ?? []) {
        const name = h.name.toLowerCase();
        if (name === "x-wallet-auth") continue;
        if (name === "x-idempotency-key" ? rng.chance(0.2) : h.required)
          headers[h.name] = name === "x-idempotency-key" ? rng.uuid() : String(sample(prune(h.schema)));
      }
      let body;
      if (content) {
        const value = localizeUrls(content.schema ? sample(prune(content.schema)) : {}, deps.sinkUrl);
        // An end user names the Temporary Wallet Secret that signs X-Wallet-Auth in the body.
        if (session && auth.wallet === "endUser" && value && typeof value === "object" && !Array.isArray(value)) value.walletSecretId = session.walletSecretId;
        body = { json: value };
      }
      const search = query.toString();
      draft = { operationId: op.operationId, label: "valid", method: op.method, path, query: search ? `?${search}` : "", headers, body, auth, session };
      const problems = deps.validateRequest(http, {
        method: op.method,
        path: path.slice("/platform".length),
        query: Object.fromEntries([...new Set(query.keys())].map((k) => [k, query.getAll(k).length > 1 ? query.getAll(k) : query.get(k)])),
        headers: {
          ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
          ...(body ? { "content-type": "application/json", "content-length": "1" } : {}),
          "x-wallet-auth": "checked-by-the-sandbox",
        },
        body: body?.json,
      });
      if (problems.length === 0) return draft;
    }
    return draft;
  }

  return { valid, sample };
}
