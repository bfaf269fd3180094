/**
 * OnchainKit's <Swap> as a component test sets it up: wagmi's `mock` connector on a dev account the node holds the
 * key of, wagmi's transport and OnchainKit's rpcUrl on the sandbox's client URL (?rpcUrl=…&account=…). Once a swap
 * succeeds its transaction hash is put on the page.
 */
import "@coinbase/onchainkit/styles.css";
import { OnchainKitProvider } from "@coinbase/onchainkit";
import { Swap, SwapAmountInput, SwapButton, SwapMessage, SwapToggleButton } from "@coinbase/onchainkit/swap";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { createConfig, http, useAccount, useConnect, WagmiProvider } from "wagmi";
import { base } from "wagmi/chains";
import { mock } from "wagmi/connectors";

const params = new URLSearchParams(window.location.search);
const rpcUrl = params.get("rpcUrl");
const account = params.get("account");

// The mock connector sends what it does not answer itself (eth_sendTransaction, signing) to the chain's default RPC
// URL, not to wagmi's transport: the chain names the sandbox there too.
const chain = { ...base, rpcUrls: { default: { http: [rpcUrl] } } };
const config = createConfig({
  chains: [chain],
  connectors: [mock({ accounts: [account] })],
  transports: { [chain.id]: http(rpcUrl) },
});
const queryClient = new QueryClient();

const ETH = { name: "ETH", address: "", symbol: "ETH", decimals: 18, image: null, chainId: chain.id };
const USDC = { name: "USDC", address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", symbol: "USDC", decimals: 6, image: null, chainId: chain.id };

function Connected() {
  const { isConnected, address } = useAccount();
  const { connect, connectors } = useConnect();
  useEffect(() => {
    if (!isConnected) connect({ connector: connectors[0] });
  }, [isConnected, connect, connectors]);
  return isConnected ? <p data-testid="account">{address}</p> : <p>Connecting…</p>;
}

function App() {
  const [swapped, setSwapped] = useState(null);
  return (
    <main>
      <Connected />
      <Swap onSuccess={(receipt) => setSwapped(receipt.transactionHash)}>
        <SwapAmountInput label="Sell" swappableTokens={[ETH, USDC]} token={ETH} type="from" />
        <SwapToggleButton />
        <SwapAmountInput label="Buy" swappableTokens={[ETH, USDC]} token={USDC} type="to" />
        <SwapButton />
        <SwapMessage />
      </Swap>
      {swapped ? <p data-testid="swapped">{swapped}</p> : null}
    </main>
  );
}

createRoot(document.getElementById("root")).render(
  <WagmiProvider config={config}>
    <QueryClientProvider client={queryClient}>
      <OnchainKitProvider rpcUrl={rpcUrl} chain={chain} analytics={false} config={{ analytics: false }}>
        <App />
      </OnchainKitProvider>
    </QueryClientProvider>
  </WagmiProvider>,
);
