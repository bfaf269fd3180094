/**
 * The public API of cdp-sandbox.
 *
 * @example
 *   import { startSandbox } from "cdp-sandbox";
 *   const sandbox = await startSandbox();
 *   const cdp = new CdpClient({ ...sandbox.credentials, basePath: sandbox.basePath });
 *   // ...
 *   await sandbox.close();
 */
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { carriesAdminToken, isLoopbackHost, newAdminToken } from "./admin/guard.js";
import { creditDevAccounts, deriveDevAccounts, devAccountsProblem } from "./node/evm/devAccounts.js";
import { bindMiningMode, MINING_MODES, type MiningMode } from "./chain/mining.js";
import { prepareSolanaRuntime } from "./chain/solana/index.js";
import { createApp } from "./app.js";
import { answerClientError } from "./pipeline/clientError.js";
import { attachNodeWebSockets } from "./node/webSockets.js";
import { ProjectLocks } from "./pipeline/locks.js";
import type { AuthMode } from "./auth/bearer.js";
import { warmVerifyThread } from "./auth/verifyThread.js";
import { createClock, type Clock } from "./clock.js";
import { loadCompiledOperations, loadUncheckableSchemas } from "./contract/compile.js";
import { uncheckableLines } from "./contract/uncheckable.js";
import { loadValidation, prepareRefusals } from "./contract/validate.js";
import { OperationIndex } from "./contract/operations.js";
import { handlers as defaultHandlers } from "./products/index.js";
import type { AnyHandler } from "./wallet/types.js";
import { adminSpecPath, defaultSpecPath } from "./paths.js";
import type { EndUserAuthenticator } from "./pipeline/authenticate.js";
import { Journal } from "./pipeline/journal.js";
import { PLATFORM_PREFIX } from "./pipeline/pipeline.js";
import type { ScenarioHook } from "./pipeline/scenario.js";
import { ProjectRegistry, type ProjectCredentials } from "./projects/projects.js";
import { createRandomForStart } from "./random.js";
import { Store } from "./store/store.js";
import { generateImportKey, importKeyFromPem } from "./crypto/rsaEnvelope.js";
import { endUserAuthenticator } from "./wallet/identity/authenticator.js";
import { checkCoinbaseToken } from "./products/payment-sessions/coinbaseUsers.js";
import { projectOfPaymentSession } from "./products/payment-sessions/model.js";
import { ScenarioEngine } from "./scenarios/engine.js";
import { loadShippedScenarios, resolveStartupScenarios } from "./scenarios/load.js";
import { startWebhookDispatcher } from "./products/webhooks/dispatcher.js";
import { JournalFile } from "./pipeline/journalFile.js";
import { exportState } from "./state-files/export.js";
import { type CoverageDocument, coverageDocument, describeViolation, type Violation } from "./admin/coverage.js";
import { checkReportDir, writeReport } from "./admin/coverageReport.js";
import { initReader, initStartSettings, seedState, startInitAhead, writeExport } from "./state-files/lifecycle.js";
import type { StateFile } from "./state-files/model.js";

export type { Clock } from "./clock.js";
export type { MiningMode } from "./chain/mining.js";
export type { ProjectCredentials } from "./projects/projects.js";
export { createClock } from "./clock.js";
export { ScenarioError } from "./scenarios/parse.js";
export { StateFileError } from "./state-files/read.js";
export type { StateFile } from "./state-files/model.js";
export type { CoverageDocument, Violation } from "./admin/coverage.js";

/** What `close()` of a strict sandbox rejects with when the caller broke the contract: one line per distinct violation. */
export class ContractViolationError extends Error {
  constructor(readonly violations: Violation[]) {
    const total = violations.reduce((n, v) => n + v.count, 0);
    super(
      `cdp-sandbox: ${total} request(s) broke the platform's contract (${violations.length} distinct):\n${violations.map((v) => `  ${describeViolation(v)}`).join("\n")}`,
    );
    this.name = "ContractViolationError";
  }
}

export interface SandboxOptions {
  /** 0 (default in-process) picks any free port. */
  port?: number;
  /**
   * Builds the Solana runtime right after listening, a piece per turn of the event loop, so that the first Solana
   * transaction does not hold the loop ~200 ms building it; likewise warms the refusal paths of the contract's
   * bodies and parses the collections of a `--data` file its index left unparsed. The command sets it; in-process
   * it is off by default (a test that never touches Solana would pay its CPU).
   */
  prepareRuntimes?: boolean;
  host?: string;
  /** The contract to serve; defaults to the package's openapi.yaml. */
  spec?: string;
  /** Keep state in this JSON file instead of memory. */
  data?: string;
  auth?: AuthMode;
  /** Makes credentials and generated ids deterministic. */
  seed?: string;
  /** Check every response against the contract at run time; mismatches become 500s with details. */
  validateResponses?: boolean;
  clock?: Clock;
  /**
   * When a sent transaction is mined: `auto` (default) at once, so its receipt exists when the send returns;
   * `interval` in the next block on the sandbox clock, as on a live chain.
   */
  mining?: MiningMode;
  /** Replaces the platform's handlers (tests of the pipeline, or a `spec` with other operations). */
  handlers?: Readonly<Record<string, AnyHandler>>;
  /** Scenarios active for every project from the start: shipped names or file paths. */
  scenario?: string[];
  /** Folder of the shipped scenarios (defaults to the package's scenarios/). */
  scenariosDir?: string;
  /** Replaces the scenario engine entirely (tests of the pipeline). */
  scenarios?: ScenarioHook;
  /** Replaces the identity module's end-user authenticator: whom a token signs in, and their wallet secrets (tests of the pipeline). */
  endUserAuth?: EndUserAuthenticator;
  /**
   * Required in the X-Sandbox-Admin-Token header of every /_sandbox call but the hosted pages. Bound to a
   * non-loopback host without one, the sandbox makes one (from the operating system's randomness) and shows it as `Sandbox.adminToken`.
   */
  adminToken?: string;
  /**
   * `auth: "verify"` serves a key it has never seen as a new project. Default: on loopback yes; bound to another
   * address no (any machine could make up a key), unless set.
   */
  acceptUnknownKeys?: boolean;
  /**
   * Webhook targets on loopback, link-local and private addresses (checked on the URL and again on the address a
   * name resolves to). Default: on loopback allowed; bound to another address refused (a caller would reach the
   * host's own services through the deliveries), unless set.
   */
  allowPrivateWebhookTargets?: boolean;
  /**
   * The OAuth consent page (and its answer) without the admin token. Default: on loopback open; bound to another
   * address it takes the admin token like the rest of /_sandbox (whoever reaches it signs in as anyone), unless set.
   */
  openSignInPages?: boolean;
  /**
   * State to seed before the first request (docs/state-files.md): a YAML or JSON file, or its content as an object.
   * With `data`, applied only when the data file is new. A bad state file stops the start with a StateFileError.
   */
  init?: string | StateFile;
  /**
   * Dev accounts the node holds keys for (docs/testing-front-ends.md): the first N of the mnemonic Anvil and Hardhat
   * use, each credited 10,000 of the native token on every EVM network; at most 100. Default: none (or the init
   * file's `devAccounts`), as the platform's node holds no keys.
   */
  devAccounts?: number;
  /**
   * The node's test methods (`anvil_*`, `hardhat_*`, `evm_*`) without the admin token. Default: on loopback yes;
   * bound to another address they take the X-Sandbox-Admin-Token header, unless set.
   */
  allowTestMethods?: boolean;
  /**
   * How long the node's read-only EVM work of one request may run, in milliseconds: `eth_call`, `eth_estimateGas`
   * (all its runs) and the bundler's `eth_estimateUserOperationGas`, a batch's calls together. Past it the run is
   * aborted with geth's -32000 "execution aborted (timeout = …)" and a batch's later calls answer -32002 "request
   * timed out". Default 400 (geth's `--rpc.evmtimeout` is 5 s; this EVM is slower); 0: no limit. Mined transactions
   * are never cut by time.
   */
  evmTimeoutMs?: number;
  /**
   * A second port serving the node's WebSockets (and the rest), where Solana's web3.js looks for them: the HTTP
   * port plus one (solana-test-validator serves 8899 and 8900). Default: with a fixed `port`, port + 1 when it is
   * free; with port 0, none. `"next"`: port + 1 of whatever port was picked, when free. 0: none. Another number:
   * that port, and a start that cannot bind it fails.
   */
  wsPort?: number | "next";
  /** Writes the state (GET /_sandbox/export) to this file when the sandbox closes. */
  exportOnExit?: string;
  /** Appends every journal entry, with its bodies, to this file as JSON Lines while the sandbox runs. */
  journal?: string;
  /** Characters of each body the journal file keeps (default 262,144). */
  journalBodyLimit?: number;
  /**
   * A verdict on the client: `close()` rejects with a ContractViolationError when a request was refused because
   * the caller broke the contract (docs/ci.md). `violations()` tells at any time.
   */
  strict?: boolean;
  /**
   * Writes coverage.json, junit.xml and summary.md into this folder when the sandbox closes (docs/ci.md). A folder
   * that cannot be written stops the start.
   */
  report?: string;
  log?: (message: string) => void;
}

export interface Sandbox {
  /** Origin, e.g. http://127.0.0.1:8080 */
  url: string;
  /** What the official client takes as `basePath`, e.g. http://127.0.0.1:8080/platform */
  basePath: string;
  credentials: ProjectCredentials & { basePath: string };
  /** PEM of the RSA key to encrypt imported private keys with (the client's `encryptionPublicKey`). */
  importKeyPem: string;
  clock: Clock;
  /** The token the admin API requires (X-Sandbox-Admin-Token), when one is in force. */
  adminToken?: string;
  /** The addresses of the node's dev accounts (`SandboxOptions.devAccounts`), in order; empty without them. */
  devAccounts: `0x${string}`[];
  /** The second port serving the node's WebSockets (`SandboxOptions.wsPort`); undefined when there is none. */
  wsPort?: number;
  /** How sent transactions are mined (`SandboxOptions.mining`). */
  mining: MiningMode;
  /** What a sandbox bound off loopback was told to allow (`accept-unknown-keys`, `private-webhook-targets`, `test-methods`, `open-sign-in-pages`); empty on loopback. */
  optIns: string[];
  /** A new isolated project with its own credentials. */
  createProject(name?: string): Promise<ProjectCredentials & { basePath: string }>;
  /** The state as a state file (what GET /_sandbox/export answers), of one project or of all. */
  exportState(projectId?: string): StateFile;
  /** Writes what the journal file (`journal`) has pending: for signal handlers, which cannot wait for `close`. */
  flushJournal(): void;
  /** Contract coverage of the run so far (what `GET /_sandbox/coverage` answers), of every project or of one. */
  coverage(projectId?: string): CoverageDocument;
  /** The distinct requests refused because the caller broke the contract, so far, most frequent first. */
  violations(): Violation[];
  /**
   * Stops the sandbox; writes the report (`report`) first. With `strict`, rejects with a ContractViolationError
   * once everything is stopped, when there were violations.
   */
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const startedAt = Date.now();
  // The thread that checks token signatures boots while the rest of the start-up runs.
  if ((options.auth ?? "verify") !== "none") warmVerifyThread();
  const log = options.log ?? (() => undefined);
  // Before anything starts: a report that could not be written would be lost at the end of the run.
  if (options.report !== undefined) checkReportDir(options.report);
  const clock = options.clock ?? createClock();
  const mining = options.mining ?? "auto";
  if (!MINING_MODES.includes(mining)) throw new Error(`mining must be ${MINING_MODES.join(" or ")}, got '${String(mining)}'`);
  bindMiningMode(clock, mining);
  const store = await Store.open(options.data);
  // A start that fails part-way stops what it had started (the data file's log, above all, which a commit opens).
  const started: Array<() => unknown> = [() => store.close()];
  try {
    return await startOn(options, { store, started, startedAt, log, clock, mining });
  } catch (error) {
    for (const stop of started.reverse()) await Promise.resolve(stop()).catch(() => undefined);
    throw error;
  }
}

async function startOn(
  options: SandboxOptions,
  {
    store,
    started,
    startedAt,
    log,
    clock,
    mining,
  }: { store: Store; started: Array<() => unknown>; startedAt: number; log: (line: string) => void; clock: Clock; mining: MiningMode },
): Promise<Sandbox> {
  // Each start on a kept state draws from a seeded stream of its own (the first from the seed as is): no id repeats.
  const earlierStarts = await store.countStart();
  const host = options.host ?? "127.0.0.1";
  // Off loopback, other machines reach the admin API, which can reset and fund everything: it then takes a token;
  // and the secrets handed out (sign-in codes, tokens, TOTP secrets) come from the operating system, never the seed.
  const loopback = isLoopbackHost(host);
  const random = createRandomForStart(options.seed, earlierStarts, { secretsFromOs: !loopback });
  // A new RSA import key is generated on the thread pool while the rest of the start-up runs.
  const importKeyPending = store.ensureImportKey(generateImportKey);
  importKeyPending.catch(() => undefined); // awaited below; this only keeps Node from calling it unhandled meanwhile
  const handlers = options.handlers ?? defaultHandlers;
  const init = options.init === undefined ? undefined : initReader(options.init);
  // A file to apply is read now, and its accounts' addresses derived on helper threads while the rest loads.
  const initAhead = init !== undefined && earlierStarts === 0 ? startInitAhead(init, random.fork("init"), { handlers }) : undefined;
  if (initAhead) started.push(() => initAhead.close());
  const [platformOperations, adminOperations] = await Promise.all([
    loadCompiledOperations(options.spec ?? defaultSpecPath),
    loadCompiledOperations(adminSpecPath),
  ]);
  // The platform's own contract has no schema the validator cannot compile (a test keeps it so); a contract of the user's may.
  const unchecked = options.spec === undefined ? [] : loadUncheckableSchemas(options.spec);
  for (const line of uncheckableLines(options.spec ?? defaultSpecPath, unchecked)) log(line);
  const operations = new OperationIndex(platformOperations, unchecked);
  // While the import key is generated on the thread pool: no request after the ready line waits for the validators to load.
  loadValidation();
  // The contract's responses are read on first use (most runs check none); checked, the first answer would wait for them.
  if (options.validateResponses) void platformOperations[0]?.responses;
  const projects = new ProjectRegistry(store, clock, random.fork("projects"));
  let defaultCredentials = await projects.ensureDefault();
  const endUserTokenSecret = Buffer.from(await store.ensureEndUserTokenSecret(() => random.fork("end-user-tokens").secrets().hex(32)), "hex");
  const shipped = loadShippedScenarios(options.scenariosDir);
  const engine = new ScenarioEngine(shipped, clock, random.fork("scenarios"));
  for (const scenario of resolveStartupScenarios(options.scenario ?? [], shipped)) engine.activate(scenario);
  const importKey = importKeyFromPem((await importKeyPending).privateKeyPem);
  const keys = { importKey, endUserTokenSecret };
  const devAccountCount = options.devAccounts ?? (init === undefined ? undefined : initStartSettings(init).devAccounts) ?? 0;
  const { evmTimeoutMs } = options;
  if (evmTimeoutMs !== undefined && !(Number.isInteger(evmTimeoutMs) && evmTimeoutMs >= 0))
    throw new Error(`evmTimeoutMs must be a whole number of milliseconds (0: no limit), got ${String(evmTimeoutMs)}`);
  const devAccountsProblemText = devAccountsProblem(devAccountCount);
  if (devAccountsProblemText) throw new Error(devAccountsProblemText);
  const devAccounts = deriveDevAccounts(devAccountCount);
  if (init !== undefined) {
    if (earlierStarts > 0) log("--init: the data file has been started before; its state is kept and the init file is not applied again");
    else {
      const { random: initRandom, accounts: accountsAhead } = initAhead!;
      await seedState(init, { store, projects, clock, random: initRandom, accountsAhead, keys, handlers, operations, engine, shipped, log });
      // The file may have given the default project an identity of its own (an export's).
      defaultCredentials = projects.credentialsOf(store.project(projects.defaultProjectId())!);
    }
  }
  // Dev accounts hold their balance from the start in the projects that exist (others at their node's first call).
  for (const project of store.projects()) {
    const tx = store.begin(project.id);
    creditDevAccounts(tx, devAccounts);
    await tx.commit();
  }
  const journal = new Journal();
  const journalFile = options.journal ? new JournalFile(options.journal, options.journalBodyLimit, log) : undefined;
  journal.attach(journalFile);
  if (journalFile) started.push(() => journalFile.close());

  let basePath = "";
  const adminToken = options.adminToken || (loopback ? undefined : newAdminToken());
  const acceptUnknownKeys = options.acceptUnknownKeys ?? loopback;
  const privateWebhookTargets = options.allowPrivateWebhookTargets ?? loopback;
  const testMethods = options.allowTestMethods ?? loopback;
  const signInPagesOpen = options.openSignInPages ?? loopback;
  const optIns = loopback
    ? []
    : [
        ...(acceptUnknownKeys ? ["accept-unknown-keys"] : []),
        ...(privateWebhookTargets ? ["private-webhook-targets"] : []),
        ...(testMethods ? ["test-methods"] : []),
        ...(signInPagesOpen ? ["open-sign-in-pages"] : []),
      ];
  // Without unknown keys, verify mode is strict: the only difference between the two is whether such keys are served.
  const authMode: AuthMode = (options.auth ?? "verify") === "verify" && !acceptUnknownKeys ? "strict" : (options.auth ?? "verify");
  let listening: { host: string; port: number } | undefined;
  const listeningPorts = () => (listening ? [listening.port] : []);
  const webhooks = startWebhookDispatcher({ store, clock, wallNow: Date.now, log, listeningPorts, privateWebhookTargets });
  started.push(() => webhooks.stop());
  const locks = new ProjectLocks(); // the app's stages and the node's WebSockets write the same ledgers
  const app = createApp({
    locks,
    keys,
    operations,
    adminOperations: new OperationIndex(adminOperations),
    handlers,
    store,
    projects,
    clock,
    random: random.fork("requests"),
    journal,
    scenarios: options.scenarios ?? engine,
    scenarioEngine: options.scenarios ? undefined : engine,
    authMode,
    endUsers: options.endUserAuth ?? endUserAuthenticator({ store, clock, tokenSecret: endUserTokenSecret }),
    coinbaseAuth: (token) => checkCoinbaseToken(store, token, clock.now()),
    // The payer's operations carry no API key: the payment session they name says whose project it is.
    projectOfPath: ({ paymentSessionId, projectId }) => {
      if (paymentSessionId) return projectOfPaymentSession(store, paymentSessionId);
      // The embedded-wallet sign-in operations name their project in the path (an unknown one stays unknown: 404).
      return projectId && store.projects().some((p) => p.id === projectId) ? projectId : undefined;
    },
    validateResponses: options.validateResponses ?? false,
    webhooks,
    log,
    basePath: () => basePath,
    startedAt,
    listeningPorts,
    privateWebhookTargets,
    adminAccess: { listening: () => listening, token: adminToken, signInPagesOpen },
    exportState: (projectId) => exportState(store, clock, projectId),
    nodeTesting: { devAccounts, allows: (headers) => testMethods || (adminToken !== undefined && carriesAdminToken(headers, adminToken)) },
    evmTimeoutMs,
  });

  const server: Server = createServer(app);
  const webSocketIds = random.fork("websocket-journal");
  const stopWebSocket = attachNodeWebSockets(server, {
    store,
    clock,
    random: random.fork("node-websocket"),
    locks,
    clientKeys: projects,
    journal: { journal, correlationId: () => `${webSocketIds.hex(8)}-SBX` },
    evmTimeoutMs,
  });
  started.push(stopWebSocket);
  const clientErrorIds = random.fork("correlation-client-error");
  server.on(
    "clientError",
    answerClientError(
      () => `${clientErrorIds.hex(8)}-SBX`,
      // Too large a head, or bytes that are not HTTP: the caller's violation, though no door could be told for it.
      ({ correlationId, status, message }) =>
        journal.recordCall({
          kind: "platform",
          correlationId,
          receivedAt: Date.now(),
          method: "-",
          path: "(a request that did not parse as HTTP)",
          status,
          errorType: "invalid_request",
          errorMessage: message,
          violation: "body",
          durationMs: 0,
        }),
    ),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  started.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  listening = { host, port };
  const wsWanted = options.wsPort ?? (options.port ? "next" : 0);
  const wsServer =
    wsWanted === 0 ? undefined : await listenForWebSockets(createServer(app), host, wsWanted === "next" ? port + 1 : wsWanted, wsWanted !== "next");
  let stopSecondWebSocket: (() => void) | undefined;
  if (wsServer) {
    wsServer.on(
      "clientError",
      answerClientError(() => `${clientErrorIds.hex(8)}-SBX`),
    );
    const secondIds = random.fork("websocket-journal-ws-port");
    stopSecondWebSocket = attachNodeWebSockets(wsServer, {
      store,
      clock,
      random: random.fork("node-websocket-ws-port"),
      locks,
      clientKeys: projects,
      journal: { journal, correlationId: () => `${secondIds.hex(8)}-SBX` },
    });
    started.push(() => {
      stopSecondWebSocket?.();
      wsServer.closeAllConnections();
      wsServer.close();
    });
  } else if (wsWanted === "next") log(`port ${port + 1} is taken: the node's WebSockets are served on port ${port} only`);
  const wsPort = wsServer ? (wsServer.address() as AddressInfo).port : undefined;
  const urlHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? "127.0.0.1" : host;
  const url = `http://${urlHost}:${port}`;
  basePath = `${url}${PLATFORM_PREFIX}`;
  // Last, so that none of its pieces runs before the caller has the sandbox (the command's ready line).
  const preparing = options.prepareRuntimes ? prepareSolanaRuntime() : undefined;
  const warmingRefusals = options.prepareRuntimes ? prepareRefusals(platformOperations) : undefined;
  const warmingData = options.prepareRuntimes ? store.warmUp() : undefined;

  return {
    url,
    basePath,
    credentials: { ...defaultCredentials, basePath },
    importKeyPem: importKey.publicKeyPem,
    clock,
    adminToken,
    mining,
    optIns,
    devAccounts: [...devAccounts.values()].map((a) => a.address),
    wsPort,
    createProject: async (name) => ({ ...(await projects.create(name)), basePath }),
    exportState: (projectId) => exportState(store, clock, projectId),
    flushJournal: () => journalFile?.flush(),
    coverage: (projectId) => coverageDocument({ operations, journal, store }, projectId),
    violations: () => coverageDocument({ operations, journal, store }).total.violations,
    close: async () => {
      preparing?.stop();
      warmingRefusals?.stop();
      warmingData?.stop();
      await webhooks.stop();
      if (wsServer) {
        stopSecondWebSocket?.();
        wsServer.closeAllConnections();
        await new Promise<void>((resolve) => wsServer.close(() => resolve()));
      }
      await new Promise<void>((resolve, reject) => {
        stopWebSocket();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
      if (options.exportOnExit) writeExport(options.exportOnExit, exportState(store, clock));
      // Drawn once no request can come in any more, before the store closes (webhook deliveries are read from it).
      const coverage = coverageDocument({ operations, journal, store });
      if (options.report !== undefined) writeReport(options.report, coverage, options.journal);
      journalFile?.close();
      await store.close();
      if (options.strict && coverage.total.violations.length > 0) throw new ContractViolationError(coverage.total.violations);
    },
  };
}

/**
 * Listens on the WebSocket port: the server, or undefined when the port is taken and was only a default. A port asked
 * for by number that cannot be bound fails the start.
 */
async function listenForWebSockets(server: Server, host: string, port: number, required: boolean): Promise<Server | undefined> {
  if (port > 65535) return undefined;
  return new Promise<Server | undefined>((resolve, reject) => {
    server.once("error", (error: Error & { code?: string }) => {
      if (required) reject(new Error(`the WebSocket port ${port} cannot be used (${error.code ?? error.message}); pick another with --ws-port, or 0 for none`));
      else resolve(undefined);
    });
    server.listen(port, host, () => resolve(server));
  });
}
