// Readies the local chain of the x402 interop tests (run by scripts/interop, once anvil answers):
// deploys the test stablecoin TestUSD from its committed bytecode
// (daemon/chain/testusd: 6 decimals, EIP-3009), mints US$10 of it to a fresh payer,
// gives gas money to fresh keys for the exchange's hot wallet and the reference facilitator, and
// writes the hot wallet's key file (mode 0600).
//
//   node chain.mjs <rpc-url> <dir>
//
// Writes <dir>/chain.json: {rpc, chainId, token, payerKey, payer, deposit: {own, remote},
// hotKeyFile, facilitatorKey}, and prints on one line what the exchanges and the facilitator need:
// token, deposit.own, deposit.remote, hotKeyFile, facilitatorKey. Every key is made for this run;
// the payer holds no ETH (x402 payers only sign).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPublicClient, createWalletClient, defineChain, http, parseEther, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const [rpc, dir] = process.argv.slice(2);
if (!rpc || !dir) {
  console.error("usage: node chain.mjs <rpc-url> <dir>");
  process.exit(2);
}

const testdata = new URL("../daemon/chain/testusd/", import.meta.url);
const abi = JSON.parse(readFileSync(new URL("TestUSD.abi", testdata), "utf8"));
const bytecode = `0x${readFileSync(new URL("TestUSD.bin", testdata), "utf8").trim().replace(/^0x/, "")}`;

const pub = createPublicClient({ transport: http(rpc) });
const chainId = await pub.getChainId();
const chain = defineChain({
  id: chainId,
  name: `anvil ${chainId}`,
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [rpc] } },
});

// funded makes a fresh key holding 100 ETH for gas.
async function funded() {
  const key = generatePrivateKey();
  await pub.request({ method: "anvil_setBalance", params: [privateKeyToAccount(key).address, toHex(parseEther("100"))] });
  return key;
}
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

const owner = createWalletClient({ account: privateKeyToAccount(await funded()), chain, transport: http(rpc) });
const deployed = await pub.waitForTransactionReceipt({ hash: await owner.deployContract({ abi, bytecode }) });
if (deployed.status !== "success" || !deployed.contractAddress) {
  throw new Error(`TestUSD was not deployed: ${deployed.status}`);
}
const token = deployed.contractAddress;

const payerKey = generatePrivateKey();
const payer = privateKeyToAccount(payerKey).address;
const minted = await pub.waitForTransactionReceipt({
  hash: await owner.writeContract({ address: token, abi, functionName: "mint", args: [payer, 10_000_000n] }),
});
if (minted.status !== "success") {
  throw new Error("mint reverted");
}

const hotKeyFile = join(dir, "hot-wallet.key");
writeFileSync(hotKeyFile, `${(await funded()).slice(2)}\n`, { mode: 0o600 });

const out = {
  rpc, chainId, token, payerKey, payer,
  deposit: { own: fresh(), remote: fresh() },
  hotKeyFile,
  facilitatorKey: await funded(),
};
writeFileSync(join(dir, "chain.json"), JSON.stringify(out, null, 2), { mode: 0o600 });
console.log([token, out.deposit.own, out.deposit.remote, hotKeyFile, out.facilitatorKey].join(" "));
