// The A2A JS SDK (0.3) against the exchange's /a2a door: resolve the agent card, send text (a
// suggested task) and data (a posted task), read the task back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ClientFactory } from "@a2a-js/sdk/client";
import { base, rest } from "./lib.mjs";

function message(parts) {
  return { message: { kind: "message", messageId: randomUUID(), role: "user", parts } };
}

test("the agent card", async () => {
  for (const path of ["/.well-known/agent-card.json", "/.well-known/agent.json"]) {
    const res = await fetch(base + path);
    assert.equal(res.status, 200);
    const card = await res.json();
    assert.equal(card.protocolVersion, "0.3.0");
    assert.equal(card.version, "1.3.0");
    assert.equal(card.preferredTransport, "JSONRPC");
    assert.equal(card.url, `${base}/a2a`);
    assert.deepEqual(card.capabilities, { streaming: false, pushNotifications: false, stateTransitionHistory: false });
    assert.deepEqual(card.defaultInputModes, ["text/plain", "application/json"]);
    const ids = card.skills.map((s) => s.id);
    assert.ok(ids.includes("public") && ids.includes("buyer"), `skills ${ids}`);
    assert.ok(!ids.includes("admin"));
  }
});

test("text gets a suggested task; data posts it; tasks/get reads it back", async () => {
  const client = await new ClientFactory().createFromUrl(base);

  const suggestion = await client.sendMessage(message([{ kind: "text", text: "Write a short poem about the sea" }]));
  assert.equal(suggestion.kind, "message", JSON.stringify(suggestion));
  assert.equal(suggestion.role, "agent");
  const text = suggestion.parts.find((p) => p.kind === "text");
  const data = suggestion.parts.find((p) => p.kind === "data");
  assert.match(text.text, /Suggested task/);
  const st = data.data.suggested_task;
  assert.ok(st && st.type, JSON.stringify(data.data));
  assert.ok(st.quote && st.quote.price, "a catalog quote");
  assert.ok(data.data.how_to_post.data.type, "how to post it");

  // Post exactly what was suggested.
  const posted = await client.sendMessage(message([{ kind: "data", data: data.data.how_to_post.data }]));
  assert.equal(posted.kind, "task", JSON.stringify(posted));
  assert.match(posted.id, /^tsk_/);
  assert.equal(posted.status.state, "input-required");
  assert.equal(posted.metadata.exchange_status, "open");
  const created = posted.artifacts[0].parts[0].data;
  assert.equal(created.id, posted.id);
  assert.match(created.buyer_token, /^bt_/);
  assert.ok(Array.isArray(created.offers));

  const read = await client.getTask({ id: posted.id, metadata: { buyer_token: created.buyer_token } });
  assert.equal(read.id, posted.id);
  assert.equal(read.status.state, "input-required");
  assert.equal(read.artifacts[0].parts[0].data.status, "open");

  // The same task over REST.
  const viaRest = await rest("GET", `/api/tasks/${posted.id}?token=${created.buyer_token}`);
  assert.equal(viaRest.status, 200);
  assert.equal(viaRest.body.id, posted.id);

  // A description alone is a task too.
  const described = await client.sendMessage(message([{ kind: "data", data: { description: "Write a limerick about a lighthouse keeper" } }]));
  assert.equal(described.kind, "task");

  // Bad input names the field; an unknown task is task-not-found; a read without the buyer token
  // is refused with the exchange's own message.
  await assert.rejects(client.sendMessage(message([{ kind: "data", data: { type: "text-file", params: { prompt: 7 } } }])),
    (err) => /message\.parts\[0\]\.data\.params\.prompt/.test(err.message));
  await assert.rejects(client.getTask({ id: "tsk_doesnotexist", metadata: { buyer_token: "bt_0123" } }), (err) => /not found|-32001/i.test(err.message));
  await assert.rejects(client.getTask({ id: posted.id }), (err) => /-32010/.test(err.message) && /buyer token/.test(err.message));
});

test("malformed JSON-RPC answers the protocol's error codes", async () => {
  async function post(body) {
    const res = await fetch(`${base}/a2a`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    return { status: res.status, body: await res.json() };
  }
  let r = await post("{not json");
  assert.equal(r.body.error.code, -32700);
  r = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "no/such" }));
  assert.equal(r.body.error.code, -32601);
  assert.equal(r.body.id, 1);
  r = await post(JSON.stringify({ jsonrpc: "1.0", id: 2, method: "message/send" }));
  assert.equal(r.body.error.code, -32600);
  r = await post(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "message/send", params: { message: "hi" } }));
  assert.equal(r.body.error.code, -32602);
  r = await post(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "message/stream", params: {} }));
  assert.equal(r.body.error.code, -32004);
  for (const x of [r]) assert.ok(x.status < 500);
});
