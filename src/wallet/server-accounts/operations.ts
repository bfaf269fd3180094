/**
 * The operations on a server account that do the same on both chains: create, get (by address or name), list,
 * update (rename, attach or detach the policy), import and export. Each chain's accounts.ts gives what differs
 * (its records, how it makes a key, what an imported key must be, the bytes an export seals) and its handlers.ts
 * binds the operations to its operationIds, where the contract's types check each one. A create checks the name, then the policy, then the
 * address, and writes nothing unless all pass.
 */
import { openImportEnvelope, sealExportEnvelope } from "../../crypto/rsaEnvelope.js";
import type { Random } from "../../random.js";
import { policiesAfter } from "../policies/attach.js";
import { type AccountChecks, type AccountRecord, type AccountRecords, accountView } from "../records/accounts.js";
import { type PageQuery, paginatePages } from "../shared/pagination.js";
import type { HandlerContext } from "../types.js";

/** What a chain's record holds beyond the fields all accounts share: its address and its key. */
type AccountKey<R extends AccountRecord> = Pick<R, "address"> & Omit<R, keyof AccountRecord>;

interface ServerAccountChain<R extends AccountRecord> {
  records: AccountRecords<R>;
  /** The list's name in its page tokens, so a token of the other chain's list is refused. */
  list: string;
  /** A new key from the injected randomness. */
  newKey(random: Random): AccountKey<R>;
  /** The key in the decrypted bytes of an import, or a catalogue error saying why they are not one. */
  importedKey(raw: Uint8Array): AccountKey<R>;
  /** The bytes an export seals, as the platform's client reads them back. */
  exportedKey(record: R): Uint8Array;
}

/** The fields a create, an import and an update may set. */
interface AccountFields {
  name?: string;
  accountPolicy?: string;
}

type Answer<Status extends number, Body> = { status: Status; body: Body };
type View = ReturnType<typeof accountView>;
type Exported = Answer<200, { encryptedPrivateKey: string }>;
type ByAddress = { pathParams: { address: string } };
type ByName = { pathParams: { name: string } };
type ExportTo = { body: { exportEncryptionKey: string } };

/** Each operation takes the parts of its request it reads, so a chain's handlers.ts can list it under an operationId. */
export interface ServerAccountOperations<K = never> {
  create(req: { body: AccountFields }, ctx: HandlerContext): Answer<201, View>;
  get(req: ByAddress, ctx: HandlerContext): Answer<200, View>;
  getByName(req: ByName, ctx: HandlerContext): Answer<200, View>;
  list(req: { query: PageQuery }, ctx: HandlerContext): Answer<200, { accounts: View[]; nextPageToken?: string }>;
  update(req: ByAddress & { body: AccountFields }, ctx: HandlerContext): Answer<200, View>;
  import(req: { body: AccountFields & { encryptedPrivateKey: string } }, ctx: HandlerContext): Answer<201, View>;
  /**
   * What an import does once the envelope is open: an init file's keys are in the clear already, and sealing then
   * opening each under RSA cost ~2 ms an account.
   */
  importKey(raw: Uint8Array, body: AccountFields, ctx: HandlerContext): Answer<201, View>;
  /**
   * An import of a key whose address the caller derived already, with the same checks and record: an init file's
   * keys are derived many at once, off the event loop. `checks`, from `newAccountChecks`, check the name and
   * address against the bulk's own accounts rather than the store's.
   */
  importDerived(key: K, body: AccountFields, ctx: HandlerContext, checks?: AccountChecks): void;
  /** The checks of a bulk of new accounts into the project, when it holds none of the chain yet (else undefined). */
  newAccountChecks(ctx: HandlerContext): AccountChecks | undefined;
  export(req: ByAddress & ExportTo, ctx: HandlerContext): Exported;
  exportByName(req: ByName & ExportTo, ctx: HandlerContext): Exported;
}

export function serverAccountOperations<R extends AccountRecord>(chain: ServerAccountChain<R>): ServerAccountOperations<AccountKey<R>> {
  const { records } = chain;

  function add(ctx: HandlerContext, key: AccountKey<R>, body: AccountFields, checks?: AccountChecks): R {
    if (checks) checks.assertNameFree(body.name);
    else records.assertNameFree(ctx.store, body.name);
    const policies = policiesAfter(ctx.store, body.accountPolicy, []);
    if (checks) checks.assertAddressFree(key.address);
    else records.assertAddressFree(ctx.store, key.address);
    const now = ctx.clock.iso();
    const record = { ...key, ...(body.name !== undefined ? { name: body.name } : {}), policies, createdAt: now, updatedAt: now } as R;
    records.put(ctx.store, record);
    checks?.claim(record);
    return record;
  }

  const importKey = (raw: Uint8Array, body: AccountFields, ctx: HandlerContext): Answer<201, View> => ({
    status: 201,
    body: accountView(add(ctx, chain.importedKey(raw), body)),
  });

  const exported = (record: R, exportEncryptionKey: string): Exported => ({
    status: 200,
    body: { encryptedPrivateKey: sealExportEnvelope(exportEncryptionKey, chain.exportedKey(record)) },
  });

  return {
    create: (req, ctx) => ({
      status: 201,
      body: accountView(add(ctx, chain.newKey(ctx.random), req.body)),
    }),

    get: (req, ctx) => ({
      status: 200,
      body: accountView(records.find(ctx.store, req.pathParams.address)),
    }),

    getByName: (req, ctx) => ({
      status: 200,
      body: accountView(records.findByName(ctx.store, req.pathParams.name)),
    }),

    list: (req, ctx) => {
      const page = paginatePages((offset, size) => records.all(ctx.store).page(offset, size), req.query, chain.list);
      return { status: 200, body: { accounts: page.items.map(accountView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
    },

    update: (req, ctx) => {
      const record = records.find(ctx.store, req.pathParams.address);
      const body = req.body;
      if (body.name !== undefined) {
        records.assertNameFree(ctx.store, body.name, record.address);
        record.name = body.name;
      }
      record.policies = policiesAfter(ctx.store, body.accountPolicy, record.policies);
      record.updatedAt = ctx.clock.iso();
      records.put(ctx.store, record);
      return { status: 200, body: accountView(record) };
    },

    import: (req, ctx) => importKey(openImportEnvelope(ctx.keys.importKey, req.body.encryptedPrivateKey), req.body, ctx),

    importKey,

    importDerived: (key, body, ctx, checks) => void add(ctx, key, body, checks),

    newAccountChecks: (ctx) => records.newAccountChecks(ctx.store),

    export: (req, ctx) => exported(records.find(ctx.store, req.pathParams.address), req.body.exportEncryptionKey),

    exportByName: (req, ctx) => exported(records.findByName(ctx.store, req.pathParams.name), req.body.exportEncryptionKey),
  };
}
