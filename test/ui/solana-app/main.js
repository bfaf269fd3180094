/**
 * @solana/web3.js in a page as an app uses it: `new Connection(rpcUrl)` with no wsEndpoint (web3.js looks for the
 * WebSocket at the port plus one), a transfer signed by the payer whose secret key the test passes (?rpcUrl=…&payer=…),
 * sent and confirmed. The outcome is written into #status.
 */
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from "@solana/web3.js";

const params = new URLSearchParams(window.location.search);
const status = document.getElementById("status");

async function run() {
  const connection = new Connection(params.get("rpcUrl"), "confirmed");
  const payer = Keypair.fromSecretKey(Uint8Array.from(params.get("payer").split(",").map(Number)));
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL / 100 }),
  );
  tx.sign(payer);
  const signature = await connection.sendRawTransaction(tx.serialize());
  const confirmed = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, "confirmed");
  status.textContent = confirmed.value.err === null ? `confirmed ${signature}` : `failed ${JSON.stringify(confirmed.value.err)}`;
}

run().catch((error) => {
  status.textContent = `error ${error.message}`;
});
