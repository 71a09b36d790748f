package pipeline_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

// BenchmarkInputValidation compares the two ways a call's input could be checked against its
// schema (docs/decisions.md, "Validation"): the project's own validator, which the pipeline uses
// and which names the offending field with a hint in the exchange's error body, and
// santhosh-tekuri/jsonschema, which checks buyers' acceptance schemas. Both check the same schema
// (the operation's, as JSON) on the same arguments: create_task's example, the largest common
// input, and submit_offer's, a oneOf. Figures: ns/op and allocs/op of each.
func BenchmarkInputValidation(b *testing.B) {
	for _, def := range []interface{ Op() *contract.Op }{contract.CreateTask, contract.SubmitOffer} {
		op := def.Op()
		schema := protocol.SchemaOf(op.In)
		raw, err := json.Marshal(op.Example)
		if err != nil {
			b.Fatal(err)
		}
		var args map[string]any
		if err := json.Unmarshal(raw, &args); err != nil {
			b.Fatal(err)
		}
		b.Run(op.Name+"/own", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := protocol.Validate(schema, args, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(op.Name+"/jsonschema", func(b *testing.B) {
			doc, err := jsonschema.UnmarshalJSON(mustReader(b, schema))
			if err != nil {
				b.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			if err := c.AddResource("input.json", doc); err != nil {
				b.Fatal(err)
			}
			sch, err := c.Compile("input.json")
			if err != nil {
				b.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := sch.Validate(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func mustReader(b *testing.B, s *protocol.Schema) *bytes.Reader {
	raw, err := json.Marshal(s)
	if err != nil {
		b.Fatal(err)
	}
	return bytes.NewReader(raw)
}
