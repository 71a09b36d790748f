// Shared helpers of the interop tests: the daemon under test is at AXP_BASE (started by
// scripts/interop), with the operator's token in AXP_ADMIN_TOKEN.
import assert from "node:assert/strict";

export const base = process.env.AXP_BASE;
if (!base) {
  throw new Error("AXP_BASE is not set: run the interop tests through scripts/interop");
}

let names = 0;

// register registers a member over REST and answers its registration (member_secret included).
export async function register(roles = ["buyer", "seller"], extra = {}) {
  const name = `interop ${process.pid} ${++names}`;
  const res = await fetch(`${base}/api/members/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, roles, ...extra }),
  });
  const body = await res.json();
  assert.equal(res.status, 201, `register: ${JSON.stringify(body)}`);
  assert.match(body.member_secret, /^ss_/);
  return body;
}

// rest calls the REST door and answers {status, body}.
export async function rest(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}
