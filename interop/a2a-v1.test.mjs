// The A2A JS SDK 1.x (A2A 1.0) with its defaults against the exchange: the client resolves the
// agent card and picks the 1.0 JSON-RPC interface at /a2a; with HTTP+JSON preferred it picks the
// 1.0 HTTP+JSON interface under /a2a/v1. Over both: text gets a suggested task, a data part posts
// it, GetTask reads it, CancelTask withdraws it, and each error comes back as the SDK's error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk-v1/client";
import { Role, TaskState } from "@a2a-js/sdk-v1";
import { base, register, rest } from "./lib.mjs";

function message(parts) {
  return { message: { messageId: randomUUID(), role: Role.ROLE_USER, parts } };
}
const text = (value) => ({ content: { $case: "text", value } });
const data = (value) => ({ content: { $case: "data", value } });
const bearer = (token) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });

test("the 1.0 agent card", async () => {
  const res = await fetch(`${base}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
  assert.equal(res.status, 200);
  const card = await res.json();
  assert.deepEqual(card.supportedInterfaces, [
    { url: `${base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: `${base}/a2a/v1`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    { url: `${base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
  ]);
  assert.deepEqual(card.capabilities, { streaming: false, pushNotifications: false, extendedAgentCard: false });
  assert.ok(card.securitySchemes.memberSecret.httpAuthSecurityScheme);
  assert.ok(card.securitySchemes.buyerToken.httpAuthSecurityScheme);
  assert.equal(card.protocolVersion, undefined);
});

for (const binding of ["JSONRPC", "HTTP+JSON"]) {
  async function client() {
    if (binding === "JSONRPC") return new ClientFactory().createFromUrl(base);
    return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["HTTP+JSON"] })).createFromUrl(base);
  }

  test(`${binding}: text gets a suggested task; data posts it; GetTask reads it; CancelTask withdraws it`, async () => {
    const c = await client();
    assert.equal(c.protocolVersion, "1.0");

    const suggestion = await c.sendMessage(message([text("Write a short poem about the sea")]));
    assert.ok("messageId" in suggestion, JSON.stringify(suggestion));
    assert.equal(suggestion.role, Role.ROLE_AGENT);
    const said = suggestion.parts.find((p) => p.content.$case === "text").content.value;
    const how = suggestion.parts.find((p) => p.content.$case === "data").content.value;
    assert.match(said, /Suggested task/);
    assert.ok(how.suggested_task.quote.price, "a catalog quote");

    const posted = await c.sendMessage(message([data(how.how_to_post.data)]));
    assert.match(posted.id, /^tsk_/);
    assert.equal(posted.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.match(posted.status.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(posted.metadata.exchange_status, "open");
    const created = posted.artifacts[0].parts[0].content.value;
    assert.equal(created.id, posted.id);
    assert.match(created.buyer_token, /^bt_/);

    const read = await c.getTask({ id: posted.id }, bearer(created.buyer_token));
    assert.equal(read.id, posted.id);
    assert.equal(read.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.equal(read.artifacts[0].parts[0].content.value.status, "open");
    const viaRest = await rest("GET", `/api/tasks/${posted.id}?token=${created.buyer_token}`);
    assert.equal(viaRest.body.id, posted.id);

    const described = await c.sendMessage(message([data({ description: "Write a limerick about a lighthouse keeper" })]));
    assert.match(described.id, /^tsk_/);

    const cancelled = await c.cancelTask({ id: posted.id }, bearer(created.buyer_token));
    assert.equal(cancelled.status.state, TaskState.TASK_STATE_CANCELED);
    assert.equal((await rest("GET", `/api/tasks/${posted.id}?token=${created.buyer_token}`)).body.status, "cancelled");

    // A buyer member lists its tasks.
    const member = await register(["buyer"]);
    const mine = await c.sendMessage(message([data(how.how_to_post.data)]), bearer(member.member_secret));
    const list = await c.listTasks({ pageSize: 10 }, bearer(member.member_secret));
    assert.deepEqual(list.tasks.map((t) => t.id), [mine.id]);

    // Errors: bad input names the field; an unknown task is TaskNotFoundError; a second cancel is
    // TaskNotCancelableError; a read without the buyer token is refused with the exchange's words.
    await assert.rejects(c.sendMessage(message([data({ type: "text-file", params: { prompt: 7 } })])),
      (err) => err.name === "RequestMalformedError" && /message\.parts\[0\]\.data\.params\.prompt/.test(err.message));
    await assert.rejects(c.sendMessage(message([{ content: { $case: "url", value: "https://x.example/a.pdf" } }])),
      (err) => err.name === "ContentTypeNotSupportedError");
    await assert.rejects(c.getTask({ id: "tsk_doesnotexist" }, bearer("bt_0123")), (err) => err.name === "TaskNotFoundError");
    await assert.rejects(c.cancelTask({ id: posted.id }, bearer(created.buyer_token)), (err) => err.name === "TaskNotCancelableError");
    await assert.rejects(c.getTask({ id: posted.id }), (err) => /buyer token/.test(err.message) &&
      (binding === "JSONRPC" ? err.envelopeCode === -32010 : err.statusCode === 401));
    await assert.rejects(c.listTasks({}), (err) => binding === "JSONRPC" ? err.envelopeCode === -32010 : err.statusCode === 401);
  });
}

test("1.0 and 0.3 on one path: the version is the A2A-Version header, else the method", async () => {
  async function post(body, headers = {}) {
    const res = await fetch(`${base}/a2a`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  }
  let r = await post({ jsonrpc: "2.0", id: 1, method: "message/send", params: {} }, { "A2A-Version": "1.0" });
  assert.equal(r.body.error.code, -32601);
  assert.equal(r.body.error.data[0].reason, "METHOD_NOT_FOUND");
  r = await post({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: "tsk_x" } }, { "A2A-Version": "9.9" });
  assert.equal(r.body.error.code, -32009);
  assert.equal(r.body.error.data[0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
  r = await post({ jsonrpc: "2.0", id: 3, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ data: "x" }] } } });
  assert.equal(r.body.error.code, -32602);
  assert.equal(r.body.error.data[0].reason, "INVALID_PARAMS");
  r = await post({ jsonrpc: "2.0", id: 4, method: "SendMessage", params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "a haiku" }] } } }, { "A2A-Version": "0.3" });
  assert.equal(r.body.error.code, -32601, "0.3 has no SendMessage");
  r = await post({ jsonrpc: "2.0", id: 5, method: "message/send", params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: "a haiku" }] } } });
  assert.equal(r.body.result.kind, "message", "0.3 unchanged");
  for (const x of [r]) assert.ok(x.status < 500);
});
