/**
 * A minimal app exporting the signed-in user's key with @coinbase/cdp-react's CopyEvmKeyButton, its secure iframe
 * served by the sandbox (secureIframeBasePath). The page's query names the project, the base path and the iframe's.
 */
import { AuthButton, CDPReactProvider, CopyEvmKeyButton } from "@coinbase/cdp-react";
import { useEvmAddress, useIsSignedIn } from "@coinbase/cdp-hooks";
import { useState } from "react";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(window.location.search);

function Wallet() {
  const { isSignedIn } = useIsSignedIn();
  const { evmAddress } = useEvmAddress();
  const [status, setStatus] = useState("idle");
  if (!isSignedIn || !evmAddress) return <AuthButton />;
  return (
    <main>
      <p data-testid="address">{evmAddress}</p>
      <CopyEvmKeyButton
        address={evmAddress}
        onReady={() => setStatus("ready")}
        onSuccess={() => setStatus("copied")}
        onError={(message) => setStatus(`error: ${message}`)}
      />
      <p data-testid="export-status">{status}</p>
    </main>
  );
}

createRoot(document.getElementById("root")).render(
  <CDPReactProvider
    config={{
      projectId: params.get("projectId"),
      basePath: params.get("basePath"),
      secureIframeBasePath: params.get("secureIframeBasePath"),
      ethereum: { createOnLogin: "eoa" },
      disableAnalytics: true,
      authMethods: ["email"],
    }}
  >
    <Wallet />
  </CDPReactProvider>,
);
