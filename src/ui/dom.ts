/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/** Small DOM helpers: elements built from a tag, attributes and children; text is always set as text, never as HTML. */

type Child = Node | string | number | false | null | undefined;
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/** An element: `h("button", { type: "button", onclick: go }, "Go")`. Attributes starting with `on` are listeners. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    el.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
  }
}

/** Replaces an element's content. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A table with a caption (its accessible name), a header row and one row per item. */
export function table<T>(caption: string, columns: Array<[string, (item: T) => Child | Child[]]>, items: T[], empty = "Nothing yet."): HTMLElement {
  if (items.length === 0) return h("p", { class: "empty" }, empty);
  return h(
    "table",
    {},
    h("caption", { class: "sr-only" }, caption),
    h("thead", {}, h("tr", {}, ...columns.map(([name]) => h("th", { scope: "col" }, name)))),
    h(
      "tbody",
      {},
      ...items.map((item) =>
        h(
          "tr",
          {},
          ...columns.map(([, cell]) => {
            const value = cell(item);
            const td = h("td");
            append(td, Array.isArray(value) ? value : [value]);
            return td;
          }),
        ),
      ),
    ),
  );
}

/** A labelled form control: the label names it for assistive technology and for tests. */
export function field(label: string, control: HTMLElement): HTMLElement {
  const id = `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${Math.random().toString(36).slice(2, 7)}`;
  control.id = id;
  return h("span", { class: "field" }, h("label", { for: id }, label), control);
}

export const badge = (text: string, kind = text) => h("span", { class: `badge badge-${kind.replace(/[^a-z0-9-]/gi, "")}` }, text);

/** An address or hash, shortened, linking to its explorer page. */
export function addressLink(address: string): HTMLElement {
  return h("a", { href: `#/explorer/address/${encodeURIComponent(address)}`, class: "mono", title: address }, short(address));
}

export function txLink(hash: string): HTMLElement {
  return h("a", { href: `#/explorer/tx/${encodeURIComponent(hash)}`, class: "mono", title: hash }, short(hash));
}

const short = (s: string) => (s.length > 18 ? `${s.slice(0, 10)}…${s.slice(-6)}` : s);

export const pre = (value: unknown) => h("pre", { class: "json" }, typeof value === "string" ? value : JSON.stringify(value, null, 2));

/** A short local time for a sandbox timestamp (ISO), with the full value as its title. */
export function time(iso: string): HTMLElement {
  return h("time", { datetime: iso, title: iso }, iso.replace("T", " ").replace(/\.\d+Z$|Z$/, ""));
}

/** Pager buttons for an offset/limit list. */
export function pager(total: number, offset: number, limit: number, go: (offset: number) => void, what: string): HTMLElement {
  const last = Math.min(offset + limit, total);
  return h(
    "nav",
    { class: "pager", "aria-label": `${what} pages` },
    h("button", { type: "button", disabled: offset === 0, onclick: () => go(Math.max(0, offset - limit)) }, "Previous page"),
    h("span", { "aria-live": "polite" }, total === 0 ? "0" : `${offset + 1}–${last} of ${total}`),
    h("button", { type: "button", disabled: last >= total, onclick: () => go(offset + limit) }, "Next page"),
  );
}
