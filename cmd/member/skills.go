package member

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
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

// unpriced says, for each skill that names no full price, what it lacks ("text-file has no
// typical_eta_minutes"): the default quote declines it, which the conformance test's honesty
// check counts as a failure.
func unpriced(skills []protocol.Skill) []string {
	var out []string
	for _, s := range skills {
		if s.Instant() {
			continue
		}
		var missing []string
		if s.MinPriceUSD == nil {
			missing = append(missing, "min_price_usd")
		}
		if s.TypicalETAMinutes == nil {
			missing = append(missing, "typical_eta_minutes")
		}
		if len(missing) > 0 {
			out = append(out, s.TaskType+" has no "+strings.Join(missing, " and no "))
		}
	}
	return out
}

// shellWords are the first words of a command the shell answers itself: what follows them is
// the shell's to judge.
var shellWords = map[string]bool{"cd": true, "exec": true, "echo": true, "printf": true, "test": true, "[": true,
	"true": true, "false": true, "set": true, "export": true, "if": true, "for": true, "while": true, "case": true,
	"{": true, "(": true, "!": true, "eval": true, ".": true, "source": true, "read": true}

// checkExec refuses a --exec whose program is missing or cannot be run, before the member
// starts: otherwise every job would fail, and the buyer would wait for nothing. A command that
// starts with a shell word, a variable or a quote is left to the shell.
func checkExec(command string) error {
	fields := strings.Fields(command)
	if len(fields) == 0 {
		return cmdutil.Usagef("--exec is empty: give the command that does a job")
	}
	prog := fields[0]
	if runtime.GOOS == "windows" || shellWords[prog] || strings.ContainsAny(prog, "=$'\"`;|&<>(){}*?~") {
		return nil
	}
	if !strings.ContainsRune(prog, '/') {
		if _, err := exec.LookPath(prog); err != nil {
			return cmdutil.Usagef("--exec %q: there is no program %s on PATH", command, prog)
		}
		return nil
	}
	st, err := os.Stat(prog)
	switch {
	case err != nil:
		return cmdutil.Usagef("--exec %q: %s does not exist", command, prog)
	case st.IsDir():
		return cmdutil.Usagef("--exec %q: %s is a directory", command, prog)
	case st.Mode()&0o111 == 0:
		return cmdutil.Usagef("--exec %q: %s is not executable (chmod +x %s, or run it through its interpreter: --exec 'python3 %s')", command, prog, prog, prog)
	}
	return nil
}
