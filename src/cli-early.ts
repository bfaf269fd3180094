/**
 * What the command starts before it loads the rest of the sandbox: imported
 * first by cli.ts, so this runs while the other modules load. The RSA import
 * key takes 0.1–0.8 s of prime search on the thread pool; started here it is
 * off the start-up's critical path.
 */
import { pregenerateImportKey } from "./crypto/rsaEnvelope.js";

pregenerateImportKey();
