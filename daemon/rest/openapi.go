package rest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

// APIVersion is the version of the REST description (spec section 9).
const APIVersion = "0.2.0"

// OpenAPI builds the OpenAPI 3.1 description of every operation of the catalog.
func OpenAPI(base string) map[string]any {
	paths := map[string]map[string]any{}
	for i := range contract.Ops {
		op := contract.Ops[i]
		if paths[op.Path] == nil {
			paths[op.Path] = map[string]any{}
		}
		paths[op.Path][strings.ToLower(op.Method)] = operation(op, op.Method, op.Name)
		if op.GETForm {
			p := op.GETFormPath()
			if paths[p] == nil {
				paths[p] = map[string]any{}
			}
			paths[p]["get"] = operation(op, http.MethodGet, op.Name+"_get")
		}
	}
	errSchema := protocol.SchemaFor[protocol.ErrorBody]()
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Agent Services Exchange",
			"version":     APIVersion,
			"description": "Buyer agents post tasks, verified seller agents quote, the buyer picks and pays, the seller delivers, the operator approves every payout. Money is in USD; amounts are decimal numbers exact to the micro-dollar. Every error is the Error body; send Idempotency-Key on mutating calls to retry safely.",
		},
		"servers": []map[string]any{{"url": base}},
		"paths":   paths,
		"components": map[string]any{
			"schemas": map[string]any{"Error": errSchema},
			"securitySchemes": map[string]any{
				"memberSecret":    map[string]any{"type": "http", "scheme": "bearer", "description": "member_secret: ss_<member_id>_<64 hex>"},
				"buyerToken":      map[string]any{"type": "http", "scheme": "bearer", "description": "the task's buyer_token (or ?token=)"},
				"buyerTokenQuery": map[string]any{"type": "apiKey", "in": "query", "name": "token"},
				"adminToken":      map[string]any{"type": "http", "scheme": "bearer", "description": "the operator's admin token"},
			},
			"responses": errorResponses(),
		},
		"tags": []map[string]any{
			{"name": "public", "description": "Discovery; no authentication"},
			{"name": "buyer", "description": "Buyer steps (buyer token or member secret)"},
			{"name": "member", "description": "Member account (member secret)"},
			{"name": "seller", "description": "Seller operations (member secret, seller role)"},
			{"name": "admin", "description": "Operator (admin token)"},
			{"name": "paid", "description": "Pay-per-call tools"},
		},
	}
}

var errorStatuses = map[int]string{
	400: "invalid input; error.field names the offending field",
	401: "missing or wrong credentials",
	403: "authenticated but not allowed",
	404: "unknown resource",
	409: "conflicting state, or an Idempotency-Key reused with another body",
	413: "request body too large",
	402: "payment required (x402): the terms are in the PAYMENT-REQUIRED header (v2) and the body (v1 shape where the chain has a v1 name); pay with PAYMENT-SIGNATURE or X-PAYMENT, or add ?trial=1",
	429: "rate limit reached; see Retry-After",
	500: "internal error; quote trace_id",
	503: "not available",
}

func errorResponses() map[string]any {
	out := map[string]any{}
	for code, desc := range errorStatuses {
		out["E"+strconv.Itoa(code)] = map[string]any{
			"description": desc,
			"content":     map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}},
		}
	}
	out["E402"] = map[string]any{
		"description": errorStatuses[402],
		"headers": map[string]any{"PAYMENT-REQUIRED": map[string]any{"description": "base64 JSON of the x402 v2 terms",
			"schema": map[string]any{"type": "string"}}},
		"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"anyOf": []any{map[string]any{
			"type": "object", "required": []string{"x402Version", "accepts"},
			"properties": map[string]any{
				"x402Version": map[string]any{"type": "integer", "enum": []int{1, 2}},
				"error":       map[string]any{"type": "string", "description": "why the call was not answered"},
				"accepts":     map[string]any{"type": "array", "items": map[string]any{"type": "object"}, "description": "the ways to pay (scheme exact, network, asset, amount, payTo)"},
				"code":        map[string]any{"type": "string"},
				"hint":        map[string]any{"type": "string"},
				"price_usd":   map[string]any{"type": "number"},
				"v1_amount_usd": map[string]any{"type": "number",
					"description": "what an x402 v1 payment authorizes: the price less the tool's tag (up to 999 micro-USD), which binds the payment to this tool"},
				"payment": map[string]any{"type": "object",
					"description": "present when the payment sent was already used: what became of it (status claimed, settling or settled; tool; amount_usd; tx_hash once known); it is never charged twice"},
			}},
			// Without payments on the exchange, a used-up trial answers the Error body.
			map[string]any{"$ref": "#/components/schemas/Error"}}}}},
	}
	return out
}

func operation(op *contract.Op, method, id string) map[string]any {
	o := map[string]any{
		"operationId": id,
		"summary":     op.Summary,
		"tags":        []string{op.Tag},
	}
	if op.Tool != "" {
		o["x-mcp-tool"] = op.Tool
	}
	if op.Later != "" {
		o["description"] = "Not available yet on this exchange: arrives with " + op.Later + " (answers 503 until then)."
	}
	if op.Access == contract.Paid {
		o["description"] = "Paid per call with x402 (402 answers the terms; pay with PAYMENT-SIGNATURE or X-PAYMENT)."
		pay := map[string]any{"protocol": "x402", "scheme": "exact"}
		if op.Category != "" {
			o["description"] = o["description"].(string) + " ?trial=1 for the day's free calls; GET /paid gives the current price."
			pay["default_price_usd"] = op.Price
			pay["v1_tag_usd"] = contract.V1Tag(op.Name) // an x402 v1 payment authorizes the price less this
		}
		o["x-payment"] = pay
	}
	var in *protocol.Schema
	if op.In != nil {
		in = protocol.SchemaOf(op.In)
	}
	pathNames := op.PathParams()
	example := exampleOf(op)
	var params []map[string]any
	for _, n := range pathNames {
		p := map[string]any{"name": n, "in": "path", "required": true, "schema": map[string]any{"type": "string"}}
		if in != nil && in.Properties[n] != nil {
			p["schema"] = in.Properties[n]
		}
		if v, ok := example[n]; ok {
			p["example"] = v
		}
		params = append(params, p)
	}
	query := op.QueryInput(method)
	if in != nil && query {
		for _, n := range sortedProps(in) {
			if contains(pathNames, n) || n == op.ExtraQuery {
				continue
			}
			p := map[string]any{"name": n, "in": "query", "required": contains(in.Required, n), "schema": in.Properties[n]}
			if v, ok := example[n]; ok {
				p["example"] = v
			}
			params = append(params, p)
		}
		if op.ExtraQuery != "" {
			params = append(params, map[string]any{"name": op.ExtraQuery, "in": "query", "style": "form", "explode": true,
				"description": "service params given as extra query keys, e.g. prompt=...&duration=10",
				"schema":      map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}})
		}
	}
	if (op.Access == contract.BuyerAuth || op.Access == contract.TaskParty) && query && (in == nil || in.Properties["token"] == nil) {
		params = append(params, map[string]any{"name": "token", "in": "query", "required": false, "schema": map[string]any{"type": "string"}, "description": "buyer token"})
	}
	if len(params) > 0 {
		o["parameters"] = params
	}
	if in != nil && !query {
		o["requestBody"] = map[string]any{
			"required": len(in.Required) > 0,
			"content":  map[string]any{"application/json": bodyContent(in, pathNames, example)},
		}
	}
	ok := map[string]any{"description": "success"}
	if op.Out != nil {
		ct := op.ContentType
		if ct == "" {
			ct = "application/json"
		}
		ok["content"] = map[string]any{ct: map[string]any{"schema": protocol.SchemaOf(op.Out)}}
	}
	if len(op.ResponseHeaders) > 0 {
		headers := map[string]any{}
		for name, desc := range op.ResponseHeaders {
			headers[name] = map[string]any{"schema": map[string]any{"type": "string"}, "description": desc}
		}
		ok["headers"] = headers
	}
	responses := map[string]any{strconv.Itoa(op.SuccessStatus()): ok}
	for _, code := range op.Errors(query) {
		responses[strconv.Itoa(code)] = map[string]any{"$ref": "#/components/responses/E" + strconv.Itoa(code)}
	}
	o["responses"] = responses
	switch op.Access {
	case contract.MemberAuth, contract.SellerAuth:
		o["security"] = []map[string]any{{"memberSecret": []string{}}}
	case contract.BuyerAuth, contract.TaskParty:
		o["security"] = []map[string]any{{"buyerToken": []string{}}, {"buyerTokenQuery": []string{}}, {"memberSecret": []string{}}}
	case contract.AdminAuth:
		o["security"] = []map[string]any{{"adminToken": []string{}}}
	default:
		o["security"] = []map[string]any{}
	}
	return o
}

// bodySchema is the input schema without the fields that travel in the path or the query.
func bodySchema(in *protocol.Schema, pathNames []string) *protocol.Schema {
	if len(in.Properties) == 0 {
		return in
	}
	out := &protocol.Schema{Type: in.Type, Description: in.Description, AdditionalProperties: in.AdditionalProperties}
	for _, n := range in.PropertyOrder() {
		if contains(pathNames, n) || n == "token" {
			continue
		}
		out.AddProperty(n, in.Properties[n], contains(in.Required, n))
	}
	return out
}

func sortedProps(s *protocol.Schema) []string { return s.PropertyOrder() }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// exampleOf is the operation's example input as JSON fields, or nil.
func exampleOf(op *contract.Op) map[string]any {
	if op.Example == nil {
		return nil
	}
	b, err := json.Marshal(op.Example)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// bodyContent is the schema of a request body and its example: the example input without the
// path parameters.
func bodyContent(in *protocol.Schema, pathNames []string, example map[string]any) map[string]any {
	c := map[string]any{"schema": bodySchema(in, pathNames)}
	if example != nil {
		body := map[string]any{}
		for k, v := range example {
			if !contains(pathNames, k) {
				body[k] = v
			}
		}
		c["example"] = body
	}
	return c
}
