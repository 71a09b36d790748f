package daemon_test

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestIdempotencyOnEveryDoor: a tools/call retried with the same Idempotency-Key header over /mcp,
// and an A2A message/send sent again with the same messageId, answer the first call's task and
// post no second one; another key or messageId posts a new task, and the same key with other
// arguments is refused as a different request.
func TestIdempotencyOnEveryDoor(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "2.50", 5, nil, nil)

	mcpPost := func(key, prompt string) rpcAnswer {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
			"name": "create_task", "arguments": map[string]any{"type": "text-file", "params": map[string]any{"prompt": prompt}}}})
		return e.rpc("/mcp", string(b), map[string]string{"Idempotency-Key": key})
	}
	first := toolOK(t, mcpPost("mcp-key-0123456789abcdef", "a haiku"))
	before := taskCount(e)
	again := toolOK(t, mcpPost("mcp-key-0123456789abcdef", "a haiku"))
	if again["id"] != first["id"] || again["buyer_token"] != first["buyer_token"] || taskCount(e) != before {
		t.Fatalf("MCP retry posted again: first %v, retry %v, tasks %d -> %d", first["id"], again["id"], before, taskCount(e))
	}
	toolErr(t, mcpPost("mcp-key-0123456789abcdef", "another haiku"), "conflict", "")
	if other := toolOK(t, mcpPost("mcp-key-fedcba9876543210", "a haiku")); other["id"] == first["id"] || taskCount(e) != before+1 {
		t.Fatalf("a new key did not post a new task: %v", other["id"])
	}

	var raws [][]byte
	send := func(messageID string) map[string]any {
		a := e.rpc("/a2a", `{"jsonrpc":"2.0","id":"r1","method":"message/send","params":{"message":{"kind":"message","messageId":"`+messageID+
			`","role":"user","parts":[{"kind":"data","data":{"type":"text-file","params":{"prompt":"a limerick"}}}]}}}`, nil)
		res, _ := a.body["result"].(map[string]any)
		if res["kind"] != "task" {
			t.Fatalf("message/send: %s", a.raw)
		}
		raws = append(raws, a.raw)
		return res
	}
	before = taskCount(e)
	a1 := send("6f1c2a9e-8d2b-4c1e-9a7f-2b6d8e4c1a03")
	a2 := send("6f1c2a9e-8d2b-4c1e-9a7f-2b6d8e4c1a03")
	if a1["id"] != a2["id"] || taskCount(e) != before+1 {
		t.Fatalf("A2A resend posted again: %v then %v, tasks %d -> %d", a1["id"], a2["id"], before, taskCount(e))
	}
	// The exchange's answer (the task artifact) is the first one byte for byte; the A2A status
	// around it (its timestamp and message id) is written at each answer.
	if a, b := artifacts(t, raws[0]), artifacts(t, raws[1]); !bytes.Equal(a, b) {
		t.Fatalf("the A2A resend answered another task artifact:\n%s\nfirst:\n%s", b, a)
	}
	if a3 := send("7a2d3b0f-9e3c-4d2f-8b80-3c7e9f5d2b14"); a3["id"] == a1["id"] || taskCount(e) != before+2 {
		t.Fatalf("a new messageId did not post a new task")
	}
}

// artifacts is the raw artifacts of an A2A message/send answer.
func artifacts(t *testing.T, raw []byte) json.RawMessage {
	t.Helper()
	var v struct {
		Result struct {
			Artifacts json.RawMessage `json:"artifacts"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || len(v.Result.Artifacts) == 0 {
		t.Fatalf("no artifacts in %s: %v", raw, err)
	}
	return v.Result.Artifacts
}
