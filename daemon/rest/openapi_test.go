package rest

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOpenAPIRefsResolve: every $ref of the description points at a component it defines (a
// response code added to an operation without its component broke every validator).
func TestOpenAPIRefsResolve(t *testing.T) {
	raw, err := json.Marshal(OpenAPI("http://127.0.0.1:8080"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	refs := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				refs++
				if !resolves(doc, ref) {
					t.Errorf("$ref %q points at nothing", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if refs < 50 {
		t.Fatalf("only %d $refs seen", refs)
	}
}

func resolves(doc map[string]any, ref string) bool {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	var cur any = doc
	for _, tok := range strings.Split(path, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]; !ok {
			return false
		}
	}
	return true
}

// TestOpenAPIPaidToolsDeclare402: a pay-per-call tool declares its 402 with the x402 terms header.
func TestOpenAPIPaidToolsDeclare402(t *testing.T) {
	doc := OpenAPI("http://127.0.0.1:8080")
	op := doc["paths"].(map[string]map[string]any)["/paid/text/injection-check"]["post"].(map[string]any)
	if _, ok := op["responses"].(map[string]any)["402"]; !ok {
		t.Fatalf("injection-check declares no 402: %v", op["responses"])
	}
	e402, _ := doc["components"].(map[string]any)["responses"].(map[string]any)["E402"].(map[string]any)
	headers, _ := e402["headers"].(map[string]any)
	if _, ok := headers["PAYMENT-REQUIRED"]; !ok {
		t.Fatalf("E402 declares no PAYMENT-REQUIRED header: %v", e402)
	}
}
