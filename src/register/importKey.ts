/**
 * Account imports: the official client encrypts the private key with the
 * production RSA key compiled into it (unless the caller passes
 * `encryptionPublicKey`), and only the platform can decrypt that. The hook
 * wraps `crypto.publicEncrypt` so that an encryption with exactly that key
 * uses the sandbox's import key instead; any other key is left alone.
 */
import crypto from "node:crypto";
import { syncBuiltinESMExports } from "node:module";

/** The client's built-in import key (SubjectPublicKeyInfo, RSA 4096), base64 of the DER as its PEM carries it. */
const PRODUCTION_IMPORT_KEY =
  "MIICIjANBgkqhkiG9w0BAQEFAAOCAg8AMIICCgKCAgEA2Fxydgm/ryYk0IexQIuL9DKyiIk2WmS36AZ83a9Z0QX53qdveg08b05g1Qr+o+COoYOT/FDi8anRGAs7rIyS" +
  "uigrjHR6VrmFjnGrrTr3MINwC9cYQFHwET8YVGRq+BB3iFTB1kIb9XJ/vT2sk1xPhJ6JihEwSl4DgbeVjqw59wYqrNg355oa8EdFqkmfGU2tpbM56F8iv1F+shwkGo3y" +
  "GhW/UOQ5OLauXvsqo8ranwsK+lqFblLEMlNtn1VSJeO2vMxryeKFrY2ob8VqGchCftPJiLWs2Du6juw4C1rOWwSMlXzZ6cNMHkxdTcEHMr3C2TEHgzjZY41whMwNTB8q" +
  "/pxXnIbH77caaviRs4R/POe8cSsznalXj85LULvFWOIHp0w+jEYSii9Rp9XtHWAHnrK/O/SVDtT1ohp2F+Zg1mojTgKfLOyGdOUXTi95naDTuG770rSjHdL80tJBz1Fd" +
  "+1pzGTGXGHLZQLX5YZm5iuy2cebWfF09VjIoCIlDB2++tr4M+O0Z1X1ZE0J5AckqrOluAFalaKynyH3KMyRg+NuLmibu5OmcMjCLK3D4X1YLiN2OK8/bbpEL8JYroDwb" +
  "EXIUW5mGS06YxfSUsxHzL9Tj00+GMm/Gvl0+4/+Vn8IXVHjQOSPNEy3EnqCiH/OW8v0IMC32CeGrX7mGbU+MzlsCAwEAAQ==";

/** Whether `key` (a PEM string or Buffer) is the production import key, whatever its line breaks. */
function isProductionKey(key: unknown): boolean {
  const text = typeof key === "string" ? key : Buffer.isBuffer(key) ? key.toString("latin1") : undefined;
  if (text === undefined || !text.includes("-----BEGIN PUBLIC KEY-----")) return false;
  return text.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "") === PRODUCTION_IMPORT_KEY;
}

export function installImportKey(sandboxPem: string): void {
  const original = crypto.publicEncrypt;
  const publicEncrypt = (key: Parameters<typeof crypto.publicEncrypt>[0], buffer: Parameters<typeof crypto.publicEncrypt>[1]) => {
    if (isProductionKey(key)) return original(sandboxPem, buffer);
    if (key && typeof key === "object" && !Buffer.isBuffer(key) && "key" in key && isProductionKey(key.key)) {
      return original({ ...key, key: sandboxPem } as Parameters<typeof crypto.publicEncrypt>[0], buffer);
    }
    return original(key, buffer);
  };
  Object.assign(crypto, { publicEncrypt });
  syncBuiltinESMExports();
}
