/**
 * OnchainKit's NFT methods on the client URL, read from the contract itself through the node's `eth_call`
 * (whatever runs contracts there runs these reads): ERC-165 tells an ERC-721 from an ERC-1155, and names, token
 * URIs, owners, supply and price come from the contract's own view functions. Metadata is read from `data:` token
 * URIs only: the sandbox fetches nothing from the network, so an http(s) URI is passed on as the image as is.
 *
 * Minting has no standard; the transaction built calls the common form — ERC-721 `mint(address to, uint256
 * quantity)`, ERC-1155 `mint(address to, uint256 id, uint256 amount)` — paying `mintPrice()` per token when the
 * contract has that view (docs/client-rpc.md).
 */
import { decodeFunctionResult, encodeFunctionData, formatEther, type Hex, parseAbi } from "viem";
import { RpcError } from "../jsonRpc.js";
import { addressField, type ClientRpcContext, invalidParams, optionalString, paramObject } from "./context.js";

const nftAbi = parseAbi([
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function tokenURI(uint256 tokenId) view returns (string)",
  "function uri(uint256 id) view returns (string)",
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function owner() view returns (address)",
  "function totalSupply() view returns (uint256)",
  "function mintPrice() view returns (uint256)",
  "function maxMintsPerWallet() view returns (uint256)",
  "function mint(address to, uint256 quantity) payable",
  "function mint(address to, uint256 id, uint256 amount) payable",
]);

const ERC721_INTERFACE = "0x80ac58cd";
const ERC1155_INTERFACE = "0xd9b67a26";
type ContractType = "ERC721" | "ERC1155";
type ViewName = "supportsInterface" | "name" | "symbol" | "tokenURI" | "uri" | "ownerOf" | "owner" | "totalSupply" | "mintPrice" | "maxMintsPerWallet";

/**
 * One view of the contract through the node's eth_call (`ctx.ethCall`); undefined when it reverts or returns nothing (no such
 * function). Awaited, so an eth_call that executes bytecode asynchronously serves it the same way.
 */
async function read(ctx: ClientRpcContext, to: `0x${string}`, functionName: ViewName, args: readonly unknown[] = []): Promise<unknown> {
  const data = encodeFunctionData({ abi: nftAbi, functionName, args } as never);
  let out: Hex;
  try {
    out = (await ctx.ethCall(ctx, to, data)) as Hex;
  } catch (error) {
    if (error instanceof RpcError) return undefined;
    throw error;
  }
  if (!out || out === "0x") return undefined;
  try {
    return decodeFunctionResult({ abi: nftAbi, functionName, data: out } as never);
  } catch {
    return undefined;
  }
}

/** The contract's standard, or the error the kit shows for an address that is not an NFT contract. */
async function contractTypeOf(ctx: ClientRpcContext, address: `0x${string}`): Promise<ContractType> {
  if ((await read(ctx, address, "supportsInterface", [ERC721_INTERFACE])) === true) return "ERC721";
  if ((await read(ctx, address, "supportsInterface", [ERC1155_INTERFACE])) === true) return "ERC1155";
  throw new RpcError(-32602, `invalid params: ${address} is not an ERC-721 or ERC-1155 contract on ${ctx.network}`, undefined, {
    fromState: true,
  });
}

function tokenIdParam(source: Record<string, unknown>, required: boolean): bigint | undefined {
  const id = optionalString(source, "tokenId");
  if (id === undefined) {
    if (required) throw invalidParams("tokenId is required for an ERC-1155 contract");
    return undefined;
  }
  if (!/^[0-9]{1,78}$/.test(id)) throw invalidParams("tokenId must be a decimal integer string");
  return BigInt(id);
}

interface Metadata {
  name?: string;
  description?: string;
  image?: string;
  animation_url?: string;
}

/** The JSON of a `data:application/json` URI (base64 or percent-encoded); for any other URI, the URI as the image. */
function metadataOf(uri: unknown): Metadata {
  if (typeof uri !== "string" || uri === "") return {};
  const match = /^data:application\/json(;base64)?,(.*)$/s.exec(uri);
  if (!match) return { image: uri };
  try {
    const text = match[1] ? Buffer.from(match[2]!, "base64").toString("utf8") : decodeURIComponent(match[2]!);
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Metadata) : {};
  } catch {
    return {};
  }
}

async function tokenMetadata(ctx: ClientRpcContext, address: `0x${string}`, type: ContractType, tokenId: bigint | undefined): Promise<Metadata> {
  if (tokenId === undefined) return {};
  return metadataOf(await read(ctx, address, type === "ERC721" ? "tokenURI" : "uri", [tokenId]));
}

const mimeTypeOf = (url: string) =>
  /\.(png)$/i.test(url)
    ? "image/png"
    : /\.(jpe?g)$/i.test(url)
      ? "image/jpeg"
      : /\.gif$/i.test(url)
        ? "image/gif"
        : url.startsWith("data:image/svg") || /\.svg$/i.test(url)
          ? "image/svg+xml"
          : "";

/** The price of one token in wei (`mintPrice()`), 0 for a contract without that view. */
const mintPriceOf = async (ctx: ClientRpcContext, address: `0x${string}`) => ((await read(ctx, address, "mintPrice")) as bigint | undefined) ?? 0n;

/** A token's name, description and media, from its metadata (the contract's name when the metadata has none). */
async function describeToken(ctx: ClientRpcContext, address: `0x${string}`, type: ContractType, tokenId: bigint | undefined) {
  const meta = await tokenMetadata(ctx, address, type, tokenId);
  const image = meta.image ?? "";
  return {
    name: meta.name ?? ((await read(ctx, address, "name")) as string | undefined) ?? "",
    description: meta.description ?? "",
    imageUrl: image,
    animationUrl: meta.animation_url ?? "",
    mimeType: mimeTypeOf(image),
  };
}

/** params [{ contractAddress, tokenId? }]: name, media and owner of one token. */
export async function cdp_getTokenDetails(params: unknown[], ctx: ClientRpcContext) {
  const p = paramObject(params);
  const address = addressField(p, "contractAddress");
  const type = await contractTypeOf(ctx, address);
  const tokenId = tokenIdParam(p, false);
  const owner = type === "ERC721" && tokenId !== undefined ? ((await read(ctx, address, "ownerOf", [tokenId])) as string | undefined) : undefined;
  return {
    ...(await describeToken(ctx, address, type, tokenId)),
    ownerAddress: owner ?? "0x0000000000000000000000000000000000000000",
    lastSoldPrice: { amount: "0", currency: "ETH", amountUSD: "0" },
    contractType: type,
  };
}

/** params [{ contractAddress, takerAddress?, tokenId? }]: what a mint costs and whether the taker may mint. */
export async function cdp_getMintDetails(params: unknown[], ctx: ClientRpcContext) {
  const p = paramObject(params);
  const address = addressField(p, "contractAddress");
  if (p.takerAddress !== undefined) addressField(p, "takerAddress");
  const type = await contractTypeOf(ctx, address);
  const tokenId = tokenIdParam(p, type === "ERC1155");
  const price = await mintPriceOf(ctx, address);
  const max = (await read(ctx, address, "maxMintsPerWallet")) as bigint | undefined;
  return {
    ...(await describeToken(ctx, address, type, tokenId)),
    contractType: type,
    price: { amount: formatEther(price), currency: "ETH", amountUSD: "0" },
    mintFee: { amount: "0", currency: "ETH", amountUSD: "0" },
    maxMintsPerWallet: max === undefined ? 0 : Number(max),
    isEligibleToMint: true,
    creatorAddress: ((await read(ctx, address, "owner")) as string | undefined) ?? "0x0000000000000000000000000000000000000000",
    totalTokens: String(((await read(ctx, address, "totalSupply")) as bigint | undefined) ?? 0n),
    totalOwners: "0",
    network: ctx.network,
  };
}

/** params [{ mintAddress, takerAddress, tokenId?, quantity, network? }]: the mint call for the taker to send. */
export async function cdp_mintToken(params: unknown[], ctx: ClientRpcContext) {
  const p = paramObject(params);
  const address = addressField(p, "mintAddress");
  const taker = addressField(p, "takerAddress");
  const quantity = p.quantity;
  if (typeof quantity !== "number" || !Number.isSafeInteger(quantity) || quantity < 1) throw invalidParams("quantity must be a positive integer");
  const type = await contractTypeOf(ctx, address);
  const tokenId = tokenIdParam(p, type === "ERC1155");
  const data =
    type === "ERC721"
      ? encodeFunctionData({ abi: nftAbi, functionName: "mint", args: [taker, BigInt(quantity)] })
      : encodeFunctionData({ abi: nftAbi, functionName: "mint", args: [taker, tokenId!, BigInt(quantity)] });
  return { call_data: { data, to: address, from: taker, value: ((await mintPriceOf(ctx, address)) * BigInt(quantity)).toString() } };
}
