/**
 * The operations on a server account that do the same on both chains: create, get (by address or name), list,
 * update (rename, attach or detach the policy), import and export. Each chain's accounts.ts binds them to its
 * operationIds, typed from the contract, and gives what differs: its records, how it makes a key, what an
 * imported key must be, and the bytes an export seals. A create checks the name, then the policy, then the
 * address, and writes nothing unless all pass.
 */
import { openImportEnvelope, sealExportEnvelope } from "../../crypto/rsaEnvelope.js";
import type { Random } from "../../random.js";
import { policiesAfter } from "../policies/attach.js";
import { type AccountRecord, type AccountRecords, accountView } from "../records/accounts.js";
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

export function serverAccountOperations<R extends AccountRecord>(chain: ServerAccountChain<R>) {
  const { records } = chain;

  function add(ctx: HandlerContext, key: AccountKey<R>, body: AccountFields): R {
    records.assertNameFree(ctx.store, body.name);
    const policies = policiesAfter(ctx.store, body.accountPolicy, []);
    records.assertAddressFree(ctx.store, key.address);
    const now = ctx.clock.iso();
    const record = { ...key, ...(body.name !== undefined ? { name: body.name } : {}), policies, createdAt: now, updatedAt: now } as R;
    records.put(ctx.store, record);
    return record;
  }

  const exported = (record: R, exportEncryptionKey: string): Exported => ({
    status: 200,
    body: { encryptedPrivateKey: sealExportEnvelope(exportEncryptionKey, chain.exportedKey(record)) },
  });

  return {
    create: (req: { body: AccountFields }, ctx: HandlerContext): Answer<201, View> => ({
      status: 201,
      body: accountView(add(ctx, chain.newKey(ctx.random), req.body)),
    }),

    get: (req: { pathParams: { address: string } }, ctx: HandlerContext): Answer<200, View> => ({
      status: 200,
      body: accountView(records.find(ctx.store, req.pathParams.address)),
    }),

    getByName: (req: { pathParams: { name: string } }, ctx: HandlerContext): Answer<200, View> => ({
      status: 200,
      body: accountView(records.findByName(ctx.store, req.pathParams.name)),
    }),

    list: (req: { query: PageQuery }, ctx: HandlerContext): Answer<200, { accounts: View[]; nextPageToken?: string }> => {
      const page = paginatePages((offset, size) => records.all(ctx.store).page(offset, size), req.query, chain.list);
      return { status: 200, body: { accounts: page.items.map(accountView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
    },

    update: (req: { pathParams: { address: string }; body: AccountFields }, ctx: HandlerContext): Answer<200, View> => {
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

    import: (req: { body: AccountFields & { encryptedPrivateKey: string } }, ctx: HandlerContext): Answer<201, View> => {
      const key = chain.importedKey(openImportEnvelope(ctx.keys.importKey, req.body.encryptedPrivateKey));
      return { status: 201, body: accountView(add(ctx, key, req.body)) };
    },

    export: (req: { pathParams: { address: string }; body: { exportEncryptionKey: string } }, ctx: HandlerContext): Exported =>
      exported(records.find(ctx.store, req.pathParams.address), req.body.exportEncryptionKey),

    exportByName: (req: { pathParams: { name: string }; body: { exportEncryptionKey: string } }, ctx: HandlerContext): Exported =>
      exported(records.findByName(ctx.store, req.pathParams.name), req.body.exportEncryptionKey),
  };
}
