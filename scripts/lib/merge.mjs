/**
 * Joins contract fragments (contract-parts/*.yaml) into one document. The
 * first fragment (00-common.yaml) holds the document header and shared
 * components; every other fragment adds `paths` and `components`. Uses the
 * yaml Document API so comments survive the merge.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isMap, parseDocument, YAMLMap } from "yaml";

export function partFiles(dir) {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** Returns {document (yaml Document), problems: string[]}. */
export function mergeParts(files) {
  const problems = [];
  const docs = files.map((file) => {
    const doc = parseDocument(readFileSync(file, "utf8"));
    for (const e of doc.errors) problems.push(`${file}: ${e.message}`);
    return { file, doc };
  });
  const [base, ...rest] = docs;
  if (!base) throw new Error("no contract parts");
  const ensureMap = (parent, key) => {
    let node = parent.get(key, true);
    if (!isMap(node)) {
      node = new YAMLMap();
      parent.set(key, node);
    }
    return node;
  };
  const paths = ensureMap(base.doc, "paths");
  const components = ensureMap(base.doc, "components");
  const owner = new Map();
  for (const { file, doc } of rest) {
    const theirPaths = doc.get("paths", true);
    if (isMap(theirPaths)) {
      for (const pair of theirPaths.items) {
        const key = String(pair.key.value ?? pair.key);
        const existing = paths.get(key, true);
        if (isMap(existing) && isMap(pair.value)) {
          for (const methodPair of pair.value.items) {
            const m = String(methodPair.key.value ?? methodPair.key);
            if (existing.has(m)) problems.push(`${file}: ${m.toUpperCase()} ${key} is already defined by ${owner.get(`${key} ${m}`)}`);
            else {
              existing.items.push(methodPair);
              owner.set(`${key} ${m}`, file);
            }
          }
        } else {
          paths.items.push(pair);
          if (isMap(pair.value)) for (const mp of pair.value.items) owner.set(`${key} ${String(mp.key.value ?? mp.key)}`, file);
        }
      }
    }
    const theirComponents = doc.get("components", true);
    if (isMap(theirComponents)) {
      for (const section of theirComponents.items) {
        const sectionName = String(section.key.value ?? section.key);
        const target = ensureMap(components, sectionName);
        if (!isMap(section.value)) continue;
        for (const item of section.value.items) {
          const name = String(item.key.value ?? item.key);
          if (target.has(name)) {
            const prev = owner.get(`#${sectionName}/${name}`) ?? "00-common";
            problems.push(`${file}: components.${sectionName}.${name} is already defined by ${prev}`);
            continue;
          }
          target.items.push(item);
          owner.set(`#${sectionName}/${name}`, file);
        }
      }
    }
  }
  return { document: base.doc, problems };
}
