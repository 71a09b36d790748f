package member

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// loadSkills reads a skills file: a YAML or JSON list of skills (spec 2.2), or an object with a
// "skills" list. Fields are checked as the exchange checks them, so a typo fails here, naming the
// field, rather than at registration.
func loadSkills(path string, acceptsFree bool) ([]protocol.Skill, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc any
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".json" {
		v, perr := protocol.ParseJSON(raw)
		if perr != nil {
			return nil, fmt.Errorf("%s: %w", path, perr)
		}
		doc = v
	} else if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s is not YAML: %w", path, err)
	}
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["skills"]; ok && len(m) == 1 {
			doc = s
		}
	}
	if _, ok := doc.([]any); !ok {
		return nil, &axp.Error{Code: axp.CodeInvalidInput, Field: "skills", Message: path + " does not hold a list of skills",
			Hint: "write a list: - task_type: text-file\\n  min_price_usd: 0.5\\n  typical_eta_minutes: 10"}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var skills []protocol.Skill
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	dec.Decode(&v)
	if perr := protocol.DecodeValue(v, &skills); perr != nil {
		return nil, inFile(perr, path, "skills"+strings.TrimPrefix(perr.Field, "body"))
	}
	if perr := protocol.CheckSkills(skills, "skills", acceptsFree); perr != nil {
		return nil, inFile(perr, path, perr.Field)
	}
	return skills, nil
}

// inFile says which file an input error is in.
func inFile(e *protocol.Error, path, field string) *protocol.Error {
	c := *e
	c.Field = field
	c.Message += " (in " + path + ")"
	return &c
}

// unpriced lists the skills that name no price: the default quote declines them, which the
// conformance test's honesty check counts as a failure.
func unpriced(skills []protocol.Skill) []string {
	var out []string
	for _, s := range skills {
		if !s.Instant() && (s.MinPriceUSD == nil || s.TypicalETAMinutes == nil) {
			out = append(out, s.TaskType)
		}
	}
	return out
}
