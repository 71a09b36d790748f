// The official MCP TypeScript SDK client against the exchange's /mcp door: public tools without
// credentials, member tools with a member secret, errors as isError tool results.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { base, register, rest } from "./lib.mjs";

const memberTools = ["heartbeat", "update_skills", "get_my_profile", "list_quote_requests", "submit_offer", "list_jobs",
  "deliver", "list_my_tasks", "request_payment", "favourites", "announcements", "message_operator",
  "board_list", "board_read", "board_post", "board_reply"];

async function connect(token) {
  const client = new Client({ name: "axp-interop", version: "1.0.0" });
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

// errorOf reads the exchange error body of an isError tool result.
function errorOf(result) {
  assert.equal(result.isError, true, `expected an error result, got ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined);
  return JSON.parse(result.content[0].text).error;
}

test("public tools: list, quote, post a task and read it back with the buyer token", async () => {
  const client = await connect();
  try {
    assert.equal(client.getServerVersion().name, "axp");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ["list_services", "get_quote", "create_task", "get_task", "choose_offer", "accept_task", "dispute_task", "register"]) {
      assert.ok(names.includes(n), `tool ${n} is listed`);
    }
    for (const n of memberTools) {
      assert.ok(!names.includes(n), `member tool ${n} is hidden without a member secret`);
    }
    const getTask = tools.find((t) => t.name === "get_task");
    assert.equal(getTask.inputSchema.type, "object");
    assert.ok(getTask.inputSchema.properties.buyer_token, "get_task takes buyer_token");
    assert.deepEqual(getTask.inputSchema.required, ["id"]);
    assert.equal(getTask.outputSchema.type, "object");

    const services = await client.callTool({ name: "list_services", arguments: {} });
    assert.ok(!services.isError);
    assert.ok(Array.isArray(services.structuredContent.services) && services.structuredContent.services.length > 0);
    assert.deepEqual(JSON.parse(services.content[0].text), services.structuredContent);

    const quote = await client.callTool({ name: "get_quote", arguments: { type: "text-file", params: { prompt: "A haiku about rivers" } } });
    assert.ok(!quote.isError, JSON.stringify(quote));
    assert.equal(typeof quote.structuredContent.price.amount, "number");

    const created = await client.callTool({ name: "create_task", arguments: { type: "text-file", params: { prompt: "A haiku about rivers" } } });
    assert.ok(!created.isError, JSON.stringify(created));
    const task = created.structuredContent;
    assert.match(task.id, /^tsk_/);
    assert.match(task.buyer_token, /^bt_/);
    assert.equal(task.status, "open");

    const read = await client.callTool({ name: "get_task", arguments: { id: task.id, buyer_token: task.buyer_token } });
    assert.ok(!read.isError, JSON.stringify(read));
    assert.equal(read.structuredContent.id, task.id);

    // The same task over REST: one marketplace behind every door.
    const viaRest = await rest("GET", `/api/tasks/${task.id}?token=${task.buyer_token}`);
    assert.equal(viaRest.status, 200);
    assert.equal(viaRest.body.status, read.structuredContent.status);

    // A buyer step with a wrong token is refused as a tool error.
    const wrong = await client.callTool({ name: "choose_offer", arguments: { id: task.id, offer_id: "off_x", buyer_token: "bt_wrong" } });
    assert.equal(errorOf(wrong).code, "unauthorized");
  } finally {
    await client.close();
  }
});

test("errors are tool results naming the field; unknown and hidden tools are protocol errors", async () => {
  const client = await connect();
  try {
    const bad = await client.callTool({ name: "get_quote", arguments: { type: "text-file", params: { prompt: 42 } } });
    const e = errorOf(bad);
    assert.equal(e.code, "invalid_input");
    assert.equal(e.field, "params.prompt");
    assert.ok(e.hint);

    const wrongType = await client.callTool({ name: "create_task", arguments: { type: "text-file", deadline_minutes: "soon" } });
    assert.equal(errorOf(wrongType).field, "deadline_minutes");

    const window = await client.callTool({ name: "get_strategy_leaderboard", arguments: { window: "100d" } });
    const we = errorOf(window);
    assert.equal(we.code, "invalid_input");
    assert.equal(we.field, "window");

    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), (err) => err.code === -32602);
    await assert.rejects(client.callTool({ name: "heartbeat", arguments: {} }), (err) => err.code === -32602);
  } finally {
    await client.close();
  }
});

test("member tools with a member secret", async () => {
  const reg = await register(["buyer", "seller"]);
  const client = await connect(reg.member_secret);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of memberTools) {
      assert.ok(names.includes(n), `member tool ${n} is listed with a member secret`);
    }
    const hb = await client.callTool({ name: "heartbeat", arguments: {} });
    assert.ok(!hb.isError, JSON.stringify(hb));
    const me = await client.callTool({ name: "get_my_profile", arguments: {} });
    assert.ok(!me.isError, JSON.stringify(me));
    assert.equal(me.structuredContent.id, reg.member_id);
    const skills = await client.callTool({ name: "update_skills", arguments: { skills: [{ task_type: "text-file", description: "short texts" }] } });
    assert.ok(!skills.isError, JSON.stringify(skills));
    const jobs = await client.callTool({ name: "list_jobs", arguments: { status: "all" } });
    assert.ok(!jobs.isError, JSON.stringify(jobs));
    assert.ok(Array.isArray(jobs.structuredContent.tasks));
    // Quote requests go to verified sellers only: the refusal is a tool error with its hint.
    const reqs = await client.callTool({ name: "list_quote_requests", arguments: {} });
    const re = errorOf(reqs);
    assert.equal(re.code, "forbidden");
    assert.ok(re.hint);
    // The board is for verified members: the refusal names the member's state.
    const board = await client.callTool({ name: "board_list", arguments: {} });
    const be = errorOf(board);
    assert.equal(be.code, "forbidden");
    assert.match(be.message, /verified members only/);
    // The member's own task, posted over MCP, read back over REST with the member secret.
    const created = await client.callTool({ name: "create_task", arguments: { description: "Write a limerick about a lighthouse keeper" } });
    assert.ok(!created.isError, JSON.stringify(created));
    const mine = await rest("GET", "/api/members/me/tasks", undefined, reg.member_secret);
    assert.ok(mine.body.tasks.some((t) => t.id === created.structuredContent.id));
  } finally {
    await client.close();
  }
});

test("a wrong member secret is refused before any MCP message", async () => {
  await assert.rejects(connect("ss_nobody_" + "0".repeat(64)));
});
