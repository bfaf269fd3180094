/**
 * What the embedded-wallet client (`@coinbase/cdp-core`) needs of a browser to run in Node: a `localStorage` (it keeps
 * its refresh token under `cdp_refresh_token`) and a `window` with Web Crypto and the page's URL. No `document`: the
 * API client then treats it as a non-browser, so the refresh token travels in the body. A file that installs these
 * runs in a worker of its own (vitest.config.ts): other clients would take the worker for a browser.
 */
export function installBrowserGlobals(origin = "http://localhost:3000/"): void {
  const storage = new Map<string, string>();
  const localStorage = {
    getItem: (k: string) => storage.get(k) ?? null,
    setItem: (k: string, v: string) => void storage.set(k, String(v)),
    removeItem: (k: string) => void storage.delete(k),
    clear: () => storage.clear(),
    key: (i: number) => [...storage.keys()][i] ?? null,
    get length() {
      return storage.size;
    },
  };
  Object.assign(globalThis, {
    localStorage,
    window: { crypto: globalThis.crypto, localStorage, location: new URL(origin), history: { state: null, replaceState: () => undefined } },
  });
}
