/**
 * A minimal front-end app on the embedded wallet, as a developer writes it with @coinbase/cdp-react, pointed at
 * the sandbox: the page's query names the project and the sandbox's base path (?projectId=…&basePath=…).
 * It shows the sign-in button and, once signed in, the user's EVM address.
 */
import { AuthButton, CDPReactProvider } from "@coinbase/cdp-react";
import { useEvmAddress, useIsSignedIn } from "@coinbase/cdp-hooks";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(window.location.search);
const projectId = params.get("projectId") ?? sessionStorage.getItem("projectId");
const basePath = params.get("basePath") ?? sessionStorage.getItem("basePath");
// The OAuth redirect comes back with its own query: keep the sandbox's coordinates across it.
sessionStorage.setItem("projectId", projectId);
sessionStorage.setItem("basePath", basePath);

function Wallet() {
  const { isSignedIn } = useIsSignedIn();
  const { evmAddress } = useEvmAddress();
  return (
    <main>
      <h1>Embedded wallet</h1>
      <AuthButton />
      {isSignedIn && evmAddress ? <p data-testid="address">{evmAddress}</p> : <p>Not signed in.</p>}
    </main>
  );
}

createRoot(document.getElementById("root")).render(
  <CDPReactProvider
    config={{
      projectId,
      basePath,
      ethereum: { createOnLogin: "eoa" },
      disableAnalytics: true,
      authMethods: ["email", "oauth:google"],
    }}
  >
    <Wallet />
  </CDPReactProvider>,
);
