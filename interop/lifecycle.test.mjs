// A paid job from post to released with the official MCP SDK client and nothing else on the buyer's
// and the seller's side: the seller registers, verifies (its practice quote request), quotes,
// delivers and asks to be paid; the buyer posts, chooses, reports its payment, retrieves the
// deliverable and accepts. Only the operator's approvals go over REST, as the operator's do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { base, rest } from "./lib.mjs";

const admin = process.env.AXP_ADMIN_TOKEN;

async function connect(token) {
  const client = new Client({ name: "axp-interop-lifecycle", version: "1.0.0" });
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  return client;
}

// call runs a tool and answers its structuredContent, failing on an error result.
async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.ok(!r.isError, `${name}: ${r.content?.[0]?.text}`);
  return r.structuredContent;
}

const txHash = () => "0x" + randomBytes(32).toString("hex");

// approve approves the operator's one open queue item of kind for the task.
async function approve(taskId, kind, withTx) {
  const q = await rest("GET", `/api/admin/approvals?task_id=${taskId}&kind=${kind}`, undefined, admin);
  assert.equal(q.status, 200, JSON.stringify(q.body));
  const item = q.body.approvals.find((a) => a.status === "pending_approval");
  assert.ok(item, `a pending ${kind} item for ${taskId}: ${JSON.stringify(q.body)}`);
  const body = withTx ? { tx_hash: txHash() } : {};
  const res = await rest("POST", `/api/admin/approvals/${item.approval_id}/approve`, body, admin);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

test("a buyer and a pull seller finish a paid job over MCP only", async () => {
  const taskType = `mcp-only-${process.pid}`;
  const anon = await connect();
  let seller, buyer;
  try {
    // The seller joins and verifies by answering its practice quote request.
    const reg = await call(anon, "register", {
      name: `MCP-only seller ${process.pid}`, roles: ["seller"],
      skills: [{ task_type: taskType, description: "short poems, written by hand" }],
      payout_address: "0x" + "5".repeat(40),
    });
    seller = await connect(reg.member_secret);
    const first = await call(seller, "verify_membership", {});
    assert.equal(first.passed, false);
    const practice = first.practice ?? first.practice_request;
    assert.ok(practice?.task_id, `a practice request: ${JSON.stringify(first)}`);
    await call(seller, "submit_offer", { id: practice.task_id, price_usd: 1.5, eta_minutes: 5 });
    const verified = await call(seller, "verify_membership", {});
    assert.equal(verified.passed, true, JSON.stringify(verified));

    // The buyer posts a task; the seller finds it and quotes.
    buyer = anon;
    const created = await call(buyer, "create_task", { type: taskType, description: "A two-line poem about tides" });
    const token = created.buyer_token;
    const reqs = await call(seller, "list_quote_requests", {});
    assert.ok(reqs.tasks.some((t) => t.id === created.id), "the seller sees the task");
    await call(seller, "submit_offer", { id: created.id, price_usd: 2, eta_minutes: 10, note: "by hand" });

    const withOffer = await call(buyer, "get_task", { id: created.id, buyer_token: token });
    assert.equal(withOffer.offers.length, 1);
    const chosen = await call(buyer, "choose_offer", { id: created.id, offer_id: withOffer.offers[0].offer_id, buyer_token: token });
    assert.equal(chosen.status, "awaiting_payment");
    await call(buyer, "pay_crypto", { id: created.id, tx_hash: txHash(), buyer_token: token });
    await approve(created.id, "payment", false);

    // The seller delivers; the buyer retrieves, checks and accepts.
    const jobs = await call(seller, "list_jobs", {});
    assert.ok(jobs.tasks.some((t) => t.id === created.id && t.status === "paid"), JSON.stringify(jobs));
    const poem = "Tides lean on the harbour wall,\nthen let the moon take them back.\n";
    const delivered = await call(seller, "deliver", { id: created.id, content: poem, filename: "poem.txt", mime_type: "text/plain" });
    assert.equal(delivered.status, "delivered");
    const got = await call(buyer, "get_deliverable", { id: created.id, buyer_token: token });
    assert.equal(got.content, poem);
    assert.equal(got.encoding, "utf-8");
    assert.equal(got.sha256, createHash("sha256").update(poem).digest("hex"));
    const accepted = await call(buyer, "accept_task", { id: created.id, sha256: got.sha256, buyer_token: token });
    assert.equal(accepted.status, "accepted");

    // The seller asks to be paid; the operator sends the payout.
    await call(seller, "request_payment", { id: created.id });
    await approve(created.id, "payout", true);
    const done = await call(buyer, "get_task", { id: created.id, buyer_token: token });
    assert.equal(done.status, "released");
    const timeline = await call(buyer, "get_timeline", { id: created.id, buyer_token: token });
    assert.ok(JSON.stringify(timeline).includes("released"));
  } finally {
    await anon.close();
    await seller?.close();
  }
});

test("a buyer withdraws a task over MCP", async () => {
  const client = await connect();
  try {
    const created = await call(client, "create_task", { type: "text-file", params: { prompt: "never mind" } });
    const cancelled = await call(client, "cancel_task", { id: created.id, reason: "changed my mind", buyer_token: created.buyer_token });
    assert.equal(cancelled.status, "cancelled");
  } finally {
    await client.close();
  }
});
