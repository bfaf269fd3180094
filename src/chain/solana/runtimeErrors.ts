/**
 * The runtime's transaction errors in the JSON shape the Solana RPC writes them (`"BlockhashNotFound"`,
 * `{"InstructionError":[0,{"Custom":1}]}`), and the sentence the node puts in front of a refused preflight.
 * The native layer hands errors over as numbers (fieldless errors) or small classes (errors with fields).
 */

/** TransactionError variants without fields, in the runtime's numbering. */
const TRANSACTION_ERRORS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
] as const;

/** InstructionError variants without fields, in the runtime's numbering. */
const INSTRUCTION_ERRORS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
  "UnbalancedInstruction",
  "ModifiedProgramId",
  "ExternalAccountLamportSpend",
  "ExternalAccountDataModified",
  "ReadonlyLamportChange",
  "ReadonlyDataModified",
  "DuplicateAccountIndex",
  "ExecutableModified",
  "RentEpochModified",
  "NotEnoughAccountKeys",
  "AccountDataSizeChanged",
  "AccountNotExecutable",
  "AccountBorrowFailed",
  "AccountBorrowOutstanding",
  "DuplicateAccountOutOfSync",
  "InvalidError",
  "ExecutableDataModified",
  "ExecutableLamportChange",
  "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId",
  "CallDepth",
  "MissingAccount",
  "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded",
  "InvalidSeeds",
  "InvalidRealloc",
  "ComputationalBudgetExceeded",
  "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure",
  "ProgramFailedToComplete",
  "ProgramFailedToCompile",
  "Immutable",
  "IncorrectAuthority",
  "AccountNotRentExempt",
  "InvalidAccountOwner",
  "ArithmeticOverflow",
  "UnsupportedSysvar",
  "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded",
  "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits",
  "BorshIoError",
] as const;

/** A transaction error as the RPC's JSON writes it. */
export type SolanaTxError = string | Record<string, unknown>;

interface NativeError {
  constructor: { name: string };
  index?: number;
  accountIndex?: number;
  err?: () => unknown;
  code?: number;
}

function instructionError(inner: unknown): unknown {
  if (typeof inner === "number") return INSTRUCTION_ERRORS[inner] ?? "InvalidError";
  const e = inner as NativeError;
  if (typeof e.code === "number") return { Custom: e.code };
  return { BorshIoError: String(inner) };
}

/** The JSON form of an error the native runtime returned. */
export function solanaTxErrorJson(err: unknown): SolanaTxError {
  if (typeof err === "number") return TRANSACTION_ERRORS[err] ?? "SanitizeFailure";
  const e = err as NativeError;
  switch (e.constructor.name) {
    case "TransactionErrorInstructionError":
      return { InstructionError: [e.index, instructionError(e.err?.())] };
    case "TransactionErrorDuplicateInstruction":
      return { DuplicateInstruction: e.index };
    case "TransactionErrorInsufficientFundsForRent":
      return { InsufficientFundsForRent: { account_index: e.accountIndex } };
    default:
      return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
  }
}

const TRANSACTION_SENTENCES: Record<string, string> = {
  AccountNotFound: "Attempt to debit an account but found no record of a prior credit.",
  BlockhashNotFound: "Blockhash not found",
  AlreadyProcessed: "This transaction has already been processed",
  InsufficientFundsForFee: "Insufficient funds for fee",
  SignatureFailure: "Transaction did not pass signature verification",
  InvalidAccountForFee: "This account may not be used to pay transaction fees",
  ProgramAccountNotFound: "Attempt to load a program that does not exist",
};

const INSTRUCTION_SENTENCES: Record<string, string> = {
  InsufficientFunds: "insufficient funds for instruction",
  InvalidAccountData: "invalid account data for instruction",
  InvalidInstructionData: "invalid instruction data",
  MissingRequiredSignature: "missing required signature for instruction",
  AccountAlreadyInitialized: "instruction requires an uninitialized account",
  UninitializedAccount: "instruction requires an initialized account",
  IncorrectProgramId: "incorrect program id for instruction",
  InvalidArgument: "invalid program argument",
  IllegalOwner: "Provided owner is not allowed",
  InvalidAccountOwner: "Invalid account owner",
};

/** The node's sentence for an error, as a refused preflight reports it after "Transaction simulation failed: ". */
export function solanaTxErrorMessage(err: SolanaTxError): string {
  if (typeof err === "string") return TRANSACTION_SENTENCES[err] ?? err;
  if ("InstructionError" in err) {
    const [index, inner] = err.InstructionError as [number, unknown];
    const what =
      typeof inner === "string"
        ? (INSTRUCTION_SENTENCES[inner] ?? inner)
        : `custom program error: 0x${((inner as { Custom?: number }).Custom ?? 0).toString(16)}`;
    return `Error processing Instruction ${index}: ${what}`;
  }
  if ("InsufficientFundsForRent" in err) {
    return `Transaction results in an account (${(err.InsufficientFundsForRent as { account_index: number }).account_index}) with insufficient funds for rent`;
  }
  return JSON.stringify(err);
}
