// The reference x402 facilitator logic on loopback, for the exchange's x402_facilitator_url
// (run by scripts/interop): x402Facilitator from @x402/core with the exact EVM scheme of @x402/evm
// (v2 on eip155:<chain id>, v1 on the chain's v1 name), verifying with viem and settling
// transferWithAuthorization from its own key, which pays the gas. Its whole API is POST /verify,
// POST /settle and GET /supported; nothing here is written for the exchange.
//
//   AXP_FACILITATOR_KEY=0x... node facilitator.mjs <rpc-url>
//
// Prints "x402 facilitator at http://127.0.0.1:<port>" on stdout once it listens (on a free port),
// and one line per verify and settle on stderr.
import { createServer } from "node:http";
import { x402Facilitator } from "@x402/core/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { createWalletClient, defineChain, http, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const rpc = process.argv[2];
const key = process.env.AXP_FACILITATOR_KEY;
if (!rpc || !key) {
  console.error("usage: AXP_FACILITATOR_KEY=0x... node facilitator.mjs <rpc-url>");
  process.exit(2);
}

const account = privateKeyToAccount(key);
const probe = createWalletClient({ account, transport: http(rpc) }).extend(publicActions);
const chainId = await probe.getChainId();
const chain = defineChain({
  id: chainId,
  name: `anvil ${chainId}`,
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [rpc] } },
});
// anvil mines each transaction as it comes: poll for receipts often (viem's default is 4s).
const viem = createWalletClient({ account, chain, transport: http(rpc), pollingInterval: 100 }).extend(publicActions);

// The signer as the x402 facilitator examples build it from a viem client.
const signer = toFacilitatorEvmSigner({
  address: account.address,
  getCode: (args) => viem.getCode(args),
  readContract: (args) => viem.readContract({ ...args, args: args.args || [] }),
  verifyTypedData: (args) => viem.verifyTypedData(args),
  writeContract: (args) => viem.writeContract({ ...args, args: args.args || [] }),
  sendTransaction: (args) => viem.sendTransaction(args),
  waitForTransactionReceipt: (args) => viem.waitForTransactionReceipt(args),
}, { confirmationTimeoutMs: 30_000 });

const V1_NAMES = { 84532: "base-sepolia", 8453: "base" };
const facilitator = new x402Facilitator().register(`eip155:${chainId}`, new ExactEvmScheme(signer));
if (V1_NAMES[chainId]) {
  facilitator.registerV1(V1_NAMES[chainId], new ExactEvmSchemeV1(signer));
}

const log = (...a) => console.error("facilitator:", ...a);

async function readJSON(req) {
  let body = "";
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 1 << 20) throw new Error("body too large");
  }
  return JSON.parse(body);
}

function send(res, status, value) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v)));
}

const server = createServer(async (req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  try {
    if (req.method === "GET" && path === "/supported") {
      return send(res, 200, facilitator.getSupported());
    }
    if (req.method !== "POST" || (path !== "/verify" && path !== "/settle")) {
      return send(res, 404, { error: `no ${req.method} ${path} here: POST /verify, POST /settle, GET /supported` });
    }
    const { paymentPayload, paymentRequirements } = await readJSON(req);
    if (!paymentPayload || !paymentRequirements) {
      return send(res, 400, { error: "paymentPayload and paymentRequirements are required" });
    }
    const v = paymentPayload.x402Version;
    const from = paymentPayload.payload?.authorization?.from;
    if (path === "/verify") {
      const r = await facilitator.verify(paymentPayload, paymentRequirements);
      log(`verify v${v} from ${from}: ${r.isValid ? "valid" : `invalid (${r.invalidReason})`}`);
      return send(res, 200, r);
    }
    const r = await facilitator.settle(paymentPayload, paymentRequirements);
    log(`settle v${v} from ${from}: ${r.success ? "success" : `failed (${r.errorReason})`} tx ${r.transaction}`);
    return send(res, 200, r);
  } catch (err) {
    // VerifyError and SettleError carry the reference answer; anything else is this server's error.
    log(`${path}: ${err.name}: ${err.message}`);
    if (err.invalidReason !== undefined) {
      return send(res, 400, { isValid: false, invalidReason: err.invalidReason, invalidMessage: err.invalidMessage, payer: err.payer });
    }
    if (err.errorReason !== undefined) {
      return send(res, 400, { success: false, errorReason: err.errorReason, errorMessage: err.errorMessage,
        transaction: err.transaction ?? "", network: err.network, payer: err.payer });
    }
    return send(res, 500, { error: err.message });
  }
});

server.listen(0, "127.0.0.1", () => {
  console.log(`x402 facilitator at http://127.0.0.1:${server.address().port}`);
});
for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => process.exit(0));
}
