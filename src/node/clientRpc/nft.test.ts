/**
 * The NFT methods against what the node's eth_call answers, with eth_call standing in for a deployed ERC-721
 * and ERC-1155 (the chain does not run bytecode yet; test/interop/onchainkit-api.test.ts deploys a real one once it
 * does): the standard from ERC-165, metadata from a data: token URI, the owner, price and supply, and the mint
 * call with its value.
 */
import { decodeFunctionData, encodeFunctionResult, type Hex, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { RpcError } from "../jsonRpc.js";
import type { ClientRpcContext } from "./context.js";
import { cdp_getMintDetails, cdp_getTokenDetails, cdp_mintToken } from "./nft.js";

const ERC721 = "0x00000000000000000000000000000000000a0721";
const ERC1155 = "0x0000000000000000000000000000000000a01155";
const OWNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const CREATOR = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const abi = parseAbi([
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function name() view returns (string)",
  "function tokenURI(uint256 tokenId) view returns (string)",
  "function uri(uint256 id) view returns (string)",
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function owner() view returns (address)",
  "function totalSupply() view returns (uint256)",
  "function mintPrice() view returns (uint256)",
  "function mint(address to, uint256 quantity) payable",
  "function mint(address to, uint256 id, uint256 amount) payable",
]);
const metadata = `data:application/json;base64,${Buffer.from(JSON.stringify({ name: "Sunset #1", description: "a test", image: "ipfs://sunset.png" })).toString("base64")}`;

/** Two contracts as a bytecode runtime would answer their views; any other address has no code ("0x"). */
function fakeEthCall(params: unknown[]): Hex {
  const { to, data } = params[0] as { to: string; data: Hex };
  const contract = to.toLowerCase();
  if (contract !== ERC721 && contract !== ERC1155) return "0x";
  let call: ReturnType<typeof decodeFunctionData<typeof abi>>;
  try {
    call = decodeFunctionData({ abi, data });
  } catch {
    throw new RpcError(-32000, "execution reverted"); // a function the contract does not have
  }
  const { functionName, args } = call;
  const answer = (value: unknown) => encodeFunctionResult({ abi, functionName, result: value } as never);
  switch (functionName) {
    case "supportsInterface":
      return answer(args[0] === (contract === ERC721 ? "0x80ac58cd" : "0xd9b67a26"));
    case "name":
      return answer(contract === ERC721 ? "Sunsets" : "Editions");
    case "tokenURI":
    case "uri":
      return answer(metadata);
    case "ownerOf":
      return answer(OWNER);
    case "owner":
      return answer(CREATOR);
    case "totalSupply":
      return contract === ERC721 ? answer(42n) : "0x";
    case "mintPrice":
      return contract === ERC721 ? answer(100_000_000_000_000n) : "0x";
    default:
      throw new Error(`no fake for ${functionName}`);
  }
}

// As an asynchronous runtime answers: the methods await it.
const ctx = { network: "base-sepolia", chainId: 84532, ethCall: async (_ctx, to, data) => fakeEthCall([{ to, data }]) } as ClientRpcContext;

describe("the NFT methods, reading through eth_call", () => {
  it("tells an ERC-721 by ERC-165 and reads its token's metadata and owner", async () => {
    expect(await cdp_getTokenDetails([{ contractAddress: ERC721, tokenId: "1" }], ctx)).toEqual({
      name: "Sunset #1",
      description: "a test",
      imageUrl: "ipfs://sunset.png",
      animationUrl: "",
      mimeType: "image/png",
      ownerAddress: OWNER,
      lastSoldPrice: { amount: "0", currency: "ETH", amountUSD: "0" },
      contractType: "ERC721",
    });
  });

  it("reads the mint's price, creator and supply", async () => {
    expect(await cdp_getMintDetails([{ contractAddress: ERC721, takerAddress: OWNER }], ctx)).toMatchObject({
      name: "Sunsets",
      contractType: "ERC721",
      price: { amount: "0.0001", currency: "ETH" },
      creatorAddress: CREATOR,
      totalTokens: "42",
      isEligibleToMint: true,
      network: "base-sepolia",
    });
  });

  it("builds the mint call: ERC-721 mint(to, quantity) paying price × quantity, ERC-1155 mint(to, id, amount)", async () => {
    const erc721 = await cdp_mintToken([{ mintAddress: ERC721, takerAddress: OWNER, quantity: 3 }], ctx);
    expect(erc721.call_data).toMatchObject({ to: ERC721, from: OWNER, value: "300000000000000" });
    expect(decodeFunctionData({ abi, data: erc721.call_data.data })).toMatchObject({ functionName: "mint", args: [OWNER, 3n] });
    const erc1155 = await cdp_mintToken([{ mintAddress: ERC1155, takerAddress: OWNER, quantity: 2, tokenId: "7" }], ctx);
    expect(erc1155.call_data.value).toBe("0");
    expect(decodeFunctionData({ abi, data: erc1155.call_data.data })).toMatchObject({ functionName: "mint", args: [OWNER, 7n, 2n] });
  });

  it("refuses an ERC-1155 mint without a token id, and an address without an NFT contract", async () => {
    await expect(cdp_mintToken([{ mintAddress: ERC1155, takerAddress: OWNER, quantity: 1 }], ctx)).rejects.toMatchObject({ code: -32602 });
    await expect(cdp_getMintDetails([{ contractAddress: OWNER }], ctx)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("is not an ERC-721 or ERC-1155 contract"),
    });
  });
});
