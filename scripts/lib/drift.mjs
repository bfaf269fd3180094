/**
 * Drift between the installed official client (@coinbase/cdp-sdk) and our openapi.yaml: the operations the
 * client calls (method and path), the fields of their request bodies, query parameters and success answers,
 * and the values of every enumeration in them, read from the client's TypeScript sources with the TypeScript
 * compiler's type checker, each looked up in our contract. What the client knows and the contract lacks is
 * drift. Used by scripts/drift.mjs (`npm run drift`) and test/contract/drift.test.ts.
 *
 * Two generated clients ship in the package:
 * - `openapi-client/generated/<tag>/<tag>.ts` (orval): one exported function per operation, calling
 *   `cdpApiClient<Answer>({ url, method, params?, data? })`;
 * - `_vendor/api/resources/<area>/client/Client.ts` (Fern): one private `__name(request)` per operation with
 *   an `_metadata` object naming method and path; the request type holds path, header, query and body fields.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { parse } from "yaml";

const METHODS = ["get", "put", "post", "delete", "patch"];
const MAX_DEPTH = 10;

/** `/v2/a/{x}/b` and `/v2/a/${x}/b` both become `/v2/a/{}/b`. */
function normalizePath(path) {
  const p = path.startsWith("/") ? path : `/${path}`;
  return p.replace(/\$\{[^}]*\}/g, "{}").replace(/\{[^}]*\}/g, "{}");
}

/* ------------------------------------------------------------------ the client's side */

function listTs(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTs(full));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

function stringLiteral(node) {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    let s = node.head.text;
    for (const span of node.templateSpans) s += `\${${span.expression.getText()}}${span.literal.text}`;
    return s;
  }
  return undefined;
}

function property(obj, name) {
  return obj.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText() === name);
}

/**
 * Fields (and enumeration values) of a type, as paths: `a`, `a.b`, `a[]`, `a.*` for a map's values.
 * `onField(path)` and `onEnum(path, values)` are called for each.
 */
function walkType(checker, type, path, visit, stack = []) {
  if (stack.length > MAX_DEPTH || stack.includes(type)) return;
  const members = type.isUnion() ? type.types : [type];
  const literals = [];
  for (const t of members) {
    if (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void)) continue;
    if (t.isStringLiteral()) literals.push(t.value);
    else if (t.flags & ts.TypeFlags.BooleanLiteral) continue;
    else if (t.flags & ts.TypeFlags.Object || t.isIntersection()) walkObject(checker, t, path, visit, [...stack, type]);
  }
  if (literals.length > 0) visit.onEnum(path, literals);
}

function walkObject(checker, type, path, visit, stack) {
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    for (const element of checker.getTypeArguments(type)) walkType(checker, element, `${path}[]`, visit, stack);
    return;
  }
  const name = type.getSymbol()?.getName();
  if (name && ["Date", "Blob", "File", "Function", "Promise"].includes(name)) return;
  if (type.getCallSignatures().length > 0) return;
  for (const prop of checker.getPropertiesOfType(type)) {
    const field = path ? `${path}.${prop.getName()}` : prop.getName();
    visit.onField(field);
    const decl = prop.valueDeclaration ?? prop.declarations?.[0];
    const propType = decl ? checker.getTypeOfSymbolAtLocation(prop, decl) : checker.getTypeOfSymbol(prop);
    walkType(checker, propType, field, visit, stack);
  }
  for (const info of checker.getIndexInfosOfType(type)) walkType(checker, info.type, path ? `${path}.*` : "*", visit, stack);
}

/** Collects the fields and enumerations of `type` under `where` (body, query, answer). */
function describe(checker, type, where, names = undefined) {
  const fields = new Set();
  const enums = new Map();
  const visit = {
    onField: (p) => fields.add(p),
    onEnum: (p, values) => enums.set(p, [...new Set([...(enums.get(p) ?? []), ...values])]),
  };
  if (names) {
    // Only some properties of the type travel in this place (Fern's request types mix path, header, query, body).
    for (const prop of checker.getPropertiesOfType(type)) {
      if (!names.has(prop.getName())) continue;
      const decl = prop.valueDeclaration ?? prop.declarations?.[0];
      visit.onField(prop.getName());
      walkType(checker, checker.getTypeOfSymbolAtLocation(prop, decl), prop.getName(), visit);
    }
  } else {
    walkType(checker, type, "", visit);
  }
  return {
    fields: [...fields].map((f) => `${where}.${f}`),
    enums: [...enums].map(([p, values]) => ({ path: p ? `${where}.${p}` : where, values: values.sort() })),
  };
}

function merge(...parts) {
  return { fields: parts.flatMap((p) => p.fields), enums: parts.flatMap((p) => p.enums) };
}

/** The orval client's operations. */
function orvalOperations(program, checker, files) {
  const ops = [];
  for (const file of files) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    for (const stmt of sf.statements) {
      if (!ts.isVariableStatement(stmt)) continue;
      for (const decl of stmt.declarationList.declarations) {
        const fn = decl.initializer;
        if (!fn || !(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn))) continue;
        let call;
        const find = (n) => {
          if (call) return;
          if (ts.isCallExpression(n) && n.expression.getText() === "cdpApiClient") call = n;
          else ts.forEachChild(n, find);
        };
        find(fn);
        if (!call?.arguments[0] || !ts.isObjectLiteralExpression(call.arguments[0])) continue;
        const cfg = call.arguments[0];
        const url = stringLiteral(property(cfg, "url")?.initializer);
        const method = stringLiteral(property(cfg, "method")?.initializer);
        if (!url || !method) continue;
        const paramType = (name) => {
          const p = fn.parameters.find((q) => q.name.getText() === name);
          return p ? checker.getTypeAtLocation(p) : undefined;
        };
        const parts = [];
        const data = property(cfg, "data")?.initializer;
        if (data && ts.isIdentifier(data)) {
          const t = paramType(data.text);
          if (t) parts.push(describe(checker, t, "body"));
        }
        if (property(cfg, "params") || cfg.properties.some((p) => ts.isShorthandPropertyAssignment(p) && p.name.text === "params")) {
          const t = paramType("params");
          if (t) parts.push(describe(checker, t, "query"));
        }
        const answer = call.typeArguments?.[0];
        if (answer) parts.push(describe(checker, checker.getTypeFromTypeNode(answer), "answer"));
        ops.push({
          name: decl.name.getText(),
          method: method.toUpperCase(),
          path: normalizePath(url.replace(/^\//, "")),
          source: "openapi-client",
          ...merge(...parts),
        });
      }
    }
  }
  return ops;
}

/** The Fern (vendored) client's operations. */
function fernOperations(program, checker, files) {
  const ops = [];
  for (const file of files) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    const visitNode = (node) => {
      if (ts.isMethodDeclaration(node) && node.name.getText().startsWith("__") && node.body) {
        let metadata;
        let destructure;
        const find = (n) => {
          if (ts.isVariableDeclaration(n) && n.name.getText() === "_metadata" && n.initializer && ts.isObjectLiteralExpression(n.initializer))
            metadata = n.initializer;
          if (ts.isVariableDeclaration(n) && ts.isObjectBindingPattern(n.name) && n.initializer?.getText() === "request") destructure = n.name;
          ts.forEachChild(n, find);
        };
        find(node.body);
        if (!metadata) return;
        const method = stringLiteral(property(metadata, "method")?.initializer);
        const path = stringLiteral(property(metadata, "path")?.initializer);
        if (!method || !path) return;
        // Fern names a header parameter after the header without its `X-`: X-Idempotency-Key is `idempotencyKey`.
        const bare = (name) =>
          name
            .toLowerCase()
            .replace(/^x-/, "")
            .replace(/[^a-z0-9]/g, "");
        const headers = new Set((property(metadata, "headers")?.initializer?.elements ?? []).map((e) => bare(stringLiteral(e) ?? "")));
        const pathParams = new Set([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
        const requestParam = node.parameters.find((p) => p.name.getText() === "request");
        const parts = [];
        if (requestParam) {
          const type = checker.getTypeAtLocation(requestParam);
          const all = checker.getPropertiesOfType(type).map((p) => p.getName());
          const named = new Set();
          let rest = false;
          for (const el of destructure?.elements ?? []) {
            if (el.dotDotDotToken) rest = true;
            else named.add((el.propertyName ?? el.name).getText());
          }
          const travels = (n) => !pathParams.has(n) && !headers.has(bare(n));
          if (rest) parts.push(describe(checker, type, "body", new Set(all.filter((n) => !named.has(n)))));
          const query = new Set([...named].filter(travels));
          if (query.size > 0) parts.push(describe(checker, type, "query", query));
        }
        const sig = checker.getSignatureFromDeclaration(node);
        const promised = sig && checker.getPromisedTypeOfPromise(checker.getReturnTypeOfSignature(sig));
        const data = promised?.getProperty("data");
        if (data) parts.push(describe(checker, checker.getTypeOfSymbolAtLocation(data, node), "answer"));
        ops.push({ name: node.name.getText().slice(2), method: method.toUpperCase(), path: normalizePath(path), source: "_vendor/api", ...merge(...parts) });
        return;
      }
      ts.forEachChild(node, visitNode);
    };
    visitNode(sf);
  }
  return ops;
}

/** Named enumerations the client exports (`export const X = {...} as const` beside `type X`). */
function namedEnums(program, files) {
  const out = new Map();
  for (const file of files) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    for (const stmt of sf.statements) {
      if (!ts.isVariableStatement(stmt) || !stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      for (const decl of stmt.declarationList.declarations) {
        let init = decl.initializer;
        if (init && ts.isAsExpression(init)) init = init.expression;
        if (!init || !ts.isObjectLiteralExpression(init) || init.properties.length === 0) continue;
        const values = init.properties.map((p) => (ts.isPropertyAssignment(p) ? stringLiteral(p.initializer) : undefined));
        if (values.some((v) => v === undefined)) continue;
        const name = decl.name.getText();
        out.set(name, [...new Set([...(out.get(name) ?? []), ...values])].sort());
      }
    }
  }
  return out;
}

/** Everything the installed client knows: {version, operations, enums: Map<name, values>}. */
export function readClient(clientRoot) {
  const src = join(clientRoot, "src");
  const orvalFiles = listTs(join(src, "openapi-client", "generated")).filter((f) => !f.endsWith("coinbaseDeveloperPlatformAPIs.schemas.ts"));
  const schemaFiles = listTs(join(src, "openapi-client", "generated")).filter((f) => f.endsWith("coinbaseDeveloperPlatformAPIs.schemas.ts"));
  const fernFiles = listTs(join(src, "_vendor", "api", "resources")).filter((f) => f.endsWith("Client.ts"));
  const fernTypes = listTs(join(src, "_vendor", "api", "types"));
  if (orvalFiles.length === 0) throw new Error(`no generated client found under ${src}`);
  const program = ts.createProgram([...orvalFiles, ...fernFiles], {
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const version = JSON.parse(readFileSync(join(clientRoot, "package.json"), "utf8")).version;
  return {
    version,
    operations: [...orvalOperations(program, checker, orvalFiles), ...fernOperations(program, checker, fernFiles)],
    enums: namedEnums(program, [...schemaFiles, ...fernTypes]),
  };
}

/**
 * The embedded-wallet client (@coinbase/cdp-api-client, used by cdp-core, cdp-hooks and cdp-react) ships only
 * built code: its operations are read from `dist/esm` (functions calling the client with `{ url, method, data?,
 * params? }`, exported under the operation's name) and their types from `dist/types/index.d.ts` (the same names:
 * the parameter the call sends as `data` is the body, the one sent as `params` the query, the awaited return the
 * answer).
 */
function readEmbeddedClient(clientRoot) {
  const esm = join(clientRoot, "dist", "esm");
  const calls = [];
  const exportedAs = new Map();
  for (const name of existsSync(esm) ? readdirSync(esm).filter((f) => f.endsWith(".js")) : []) {
    const sf = ts.createSourceFile(name, readFileSync(join(esm, name), "utf8"), ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
    const visit = (node) => {
      if (ts.isVariableDeclaration(node) && node.initializer && ts.isArrowFunction(node.initializer)) {
        const fn = node.initializer;
        const call = ts.isCallExpression(fn.body) ? fn.body : undefined;
        const cfg = call?.arguments[0];
        if (cfg && ts.isObjectLiteralExpression(cfg)) {
          const url = stringLiteral(property(cfg, "url")?.initializer);
          const method = stringLiteral(property(cfg, "method")?.initializer);
          const indexOf = (key) => {
            const v = property(cfg, key)?.initializer;
            return v && ts.isIdentifier(v) ? fn.parameters.findIndex((p) => p.name.getText() === v.text) : -1;
          };
          if (url && method) calls.push({ key: `${name}:${node.name.getText()}`, url, method, data: indexOf("data"), params: indexOf("params") });
        }
      }
      if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause)) {
        for (const spec of node.exportClause.elements) exportedAs.set(`${name}:${(spec.propertyName ?? spec.name).text}`, spec.name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  if (calls.length === 0) throw new Error(`no generated operations found under ${esm}`);
  const dts = join(clientRoot, "dist", "types", "index.d.ts");
  const program = ts.createProgram([dts], { noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, strict: true, types: [] });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(dts));
  const declared = new Map(checker.getExportsOfModule(moduleSymbol).map((sym) => [sym.getName(), sym]));
  const operations = calls.map((c) => {
    const name = exportedAs.get(c.key) ?? c.key;
    const sym = declared.get(name);
    const sig = sym && checker.getTypeOfSymbolAtLocation(sym, sym.valueDeclaration ?? sym.declarations[0]).getCallSignatures()[0];
    const paramType = (i) => {
      const p = i >= 0 ? sig?.getParameters()[i] : undefined;
      return p ? checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(p, p.valueDeclaration)) : undefined;
    };
    const parts = [];
    if (paramType(c.data)) parts.push(describe(checker, paramType(c.data), "body"));
    if (paramType(c.params)) parts.push(describe(checker, paramType(c.params), "query"));
    const answer = sig && checker.getAwaitedType(sig.getReturnType());
    if (answer && !(answer.flags & ts.TypeFlags.Void)) parts.push(describe(checker, answer, "answer"));
    return { name, method: c.method.toUpperCase(), path: normalizePath(c.url.replace(/^\//, "")), source: "cdp-api-client", ...merge(...parts) };
  });
  const version = JSON.parse(readFileSync(join(clientRoot, "package.json"), "utf8")).version;
  return { version, operations, enums: new Map() };
}

/* ------------------------------------------------------------------ our side */

function deref(doc, node, seen = new Set()) {
  let n = node;
  while (n && typeof n.$ref === "string") {
    if (seen.has(n.$ref)) return {};
    seen.add(n.$ref);
    n = n.$ref
      .slice(2)
      .split("/")
      .reduce((o, k) => o?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return n ?? {};
}

/** The schemas a value may match: allOf, oneOf and anyOf opened, $refs followed. */
function leaves(doc, schema, depth = 0) {
  const s = deref(doc, schema);
  if (depth > 12) return [s];
  const alts = [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])];
  if (alts.length === 0) return [s];
  const { allOf, oneOf, anyOf, ...own } = s;
  return [own, ...alts.flatMap((a) => leaves(doc, a, depth + 1))];
}

/** The schemas found at a field path (`a.b`, `a[]`, `a.*`) below `schema`; empty when the contract has no such field. */
function schemasAt(doc, schema, path) {
  let current = [schema];
  for (const raw of path.split(".").filter(Boolean)) {
    const segments = raw.split("[]");
    const next = [];
    for (const s of current) {
      for (const leaf of leaves(doc, s)) {
        if (segments[0] === "*") {
          if (leaf.additionalProperties && typeof leaf.additionalProperties === "object") next.push(leaf.additionalProperties);
          for (const v of Object.values(leaf.patternProperties ?? {})) next.push(v);
        } else if (leaf.properties && segments[0] in leaf.properties) {
          next.push(leaf.properties[segments[0]]);
        }
      }
    }
    current = next;
    for (let i = 1; i < segments.length; i++) current = current.flatMap((s) => leaves(doc, s).flatMap((l) => (l.items ? [l.items] : [])));
    if (current.length === 0) return [];
  }
  return current;
}

/** Values the contract allows at these schemas, or undefined when one of them allows any string. */
function allowedValues(doc, schemas) {
  const values = new Set();
  let constrained = false;
  for (const s of schemas) {
    for (const leaf of leaves(doc, s)) {
      if (Array.isArray(leaf.enum)) {
        constrained = true;
        for (const v of leaf.enum) values.add(v);
      } else if (leaf.const !== undefined) {
        constrained = true;
        values.add(leaf.const);
      } else if (leaf.type === "string" || leaf.type === undefined || (Array.isArray(leaf.type) && leaf.type.includes("string"))) {
        if (!leaf.allOf && !leaf.oneOf && !leaf.anyOf && leaf.type === "string") return undefined;
      }
    }
  }
  return constrained ? values : undefined;
}

function ourOperations(doc) {
  const out = new Map();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(doc, p));
      const query = { type: "object", properties: Object.fromEntries(params.filter((p) => p.in === "query").map((p) => [p.name, p.schema ?? {}])) };
      const bodyContent = deref(doc, op.requestBody)?.content ?? {};
      const body = bodyContent["application/json"]?.schema ?? Object.values(bodyContent)[0]?.schema;
      const answers = Object.entries(op.responses ?? {})
        .filter(([status]) => status.startsWith("2"))
        .map(([, r]) => deref(doc, r)?.content?.["application/json"]?.schema)
        .filter(Boolean);
      out.set(`${method.toUpperCase()} ${normalizePath(path)}`, { operationId: op.operationId, path, body, query, answers });
    }
  }
  return out;
}

/* ------------------------------------------------------------------ the comparison */

/**
 * What the client knows and `doc` (our parsed openapi.yaml) lacks, as items {key, kind, detail}; `key` is
 * what an allow-list entry's `match` is a prefix of:
 * - `GET /v2/things/{}`                                 an operation (kind "operation")
 * - `POST /v2/things body.a.b`                          a field (kind "field")
 * - `POST /v2/things body.kind = value`                 an enumeration value (kind "value")
 * - `enum ErrorType = value`                            a value of a named enumeration of the components
 */
export function findDrift(client, doc) {
  const ours = ourOperations(doc);
  const items = [];
  const seenOps = new Set();
  for (const op of client.operations) {
    const key = `${op.method} ${op.path}`;
    if (seenOps.has(key)) continue;
    seenOps.add(key);
    const mine = ours.get(key);
    if (!mine) {
      items.push({ key, kind: "operation", detail: `${op.name} (${op.source})` });
      continue;
    }
    const roots = { body: mine.body ? [mine.body] : [], query: [mine.query], answer: mine.answers };
    const missingParents = [];
    for (const field of [...op.fields].sort()) {
      if (missingParents.some((p) => field.startsWith(`${p}.`) || field.startsWith(`${p}[]`))) continue;
      const [where, ...rest] = field.split(".");
      const found = roots[where].flatMap((r) => schemasAt(doc, r, rest.join(".")));
      if (found.length === 0) {
        missingParents.push(field);
        items.push({ key: `${key} ${field}`, kind: "field", detail: `${op.name}: ${field}` });
      }
    }
    for (const { path, values } of op.enums) {
      if (missingParents.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[]`))) continue;
      const [where, ...rest] = path.split(".");
      const found = roots[where].flatMap((r) => schemasAt(doc, r, rest.join(".")));
      if (found.length === 0) continue;
      const allowed = allowedValues(doc, found);
      if (!allowed) continue;
      for (const v of values) if (!allowed.has(v)) items.push({ key: `${key} ${path} = ${v}`, kind: "value", detail: `${op.name}: ${path} = ${v}` });
    }
  }
  const schemas = doc.components?.schemas ?? {};
  for (const [name, values] of client.enums) {
    if (!schemas[name]) continue;
    const allowed = allowedValues(doc, [schemas[name]]);
    if (!allowed) continue;
    for (const v of values) if (!allowed.has(v)) items.push({ key: `enum ${name} = ${v}`, kind: "value", detail: `components.schemas.${name} lacks ${v}` });
  }
  return items;
}

/**
 * Splits drift into what the allow-list explains and what it does not; also lists allow-list entries that match
 * nothing. An entry `{match, reason}` explains every item whose key is `match` or continues it after a space,
 * a slash or a dot: `POST /v2/things` covers `POST /v2/things body.a` and `POST /v2/things/{}/go`.
 */
export function applyAllowList(items, allowed) {
  const explained = [];
  const unexplained = [];
  const used = new Set();
  for (const item of items) {
    // A match covers the key itself and what lies below it: fields after a space, deeper paths after a slash.
    const entry = allowed.find(
      (a) => item.key === a.match || item.key.startsWith(`${a.match} `) || item.key.startsWith(`${a.match}/`) || item.key.startsWith(`${a.match}.`),
    );
    if (entry) {
      explained.push({ ...item, reason: entry.reason });
      used.add(entry);
    } else unexplained.push(item);
  }
  return { explained, unexplained, stale: allowed.filter((a) => !used.has(a)) };
}

/** One line: `drift: N operations and M fields the client knows that the contract lacks`. */
export function summary(items) {
  const ops = items.filter((i) => i.kind === "operation").length;
  return `drift: ${ops} operations and ${items.length - ops} fields the client knows that the contract lacks`;
}

/**
 * Reads the server client at `clientRoot` (and, with `embeddedClientRoot`, the embedded-wallet client), our
 * document at `docPath` and the allow-list at `allowPath`.
 */
export function driftReport({ clientRoot, embeddedClientRoot, docPath, allowPath }) {
  const client = readClient(clientRoot);
  const embeddedClient = embeddedClientRoot ? readEmbeddedClient(embeddedClientRoot) : undefined;
  const doc = parse(readFileSync(docPath, "utf8"), { maxAliasCount: -1 });
  const allowed = allowPath && existsSync(allowPath) ? (parse(readFileSync(allowPath, "utf8")) ?? []) : [];
  const seen = new Set();
  const items = [...findDrift(client, doc), ...(embeddedClient ? findDrift(embeddedClient, doc) : [])].filter((i) => !seen.has(i.key) && seen.add(i.key));
  return { client, embeddedClient, items, ...applyAllowList(items, allowed), allowed };
}
