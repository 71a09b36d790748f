package member_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// runAgent runs a memberkit seller on loopback against the exchange until the test ends and
// returns its client once it is verified.
func runAgent(t *testing.T, ex *exchange, name string, allowReplays bool, skills []protocol.Skill) *memberkit.Client {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	a := &memberkit.Agent{Exchange: ex.URL, Dir: dir, Logger: slog.New(slog.DiscardHandler), AllowReplays: allowReplays,
		Seller:       memberkit.Defaults{Skills: skills},
		Registration: axp.Registration{Roles: []string{"seller"}, Name: name, Skills: skills}}
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	var kit *memberkit.Client
	eventually(t, name+" registers and verifies", func() error {
		select {
		case err := <-done:
			done <- err
			return fmt.Errorf("the agent stopped: %v", err)
		default:
		}
		creds, err := memberkit.LoadCredentials(memberkit.CredentialsPath(dir))
		if err != nil {
			return err
		}
		kit = memberkit.NewClient(ex.URL, creds.MemberSecret)
		p, err := kit.Profile(context.Background())
		if err != nil {
			return err
		}
		if !p.Verified {
			return errors.New("state " + p.State)
		}
		return nil
	})
	return kit
}

// Conformance of a real memberkit seller on loopback: every check says its level, a required
// check that fails (task_types: a skill no buyer's task carries) fails the run, and a
// warning-level one (refuses_replay of an agent that allows replays) does not.
func TestConformanceLevels(t *testing.T) {
	ex := newExchange(t)
	eta := 5
	price := protocol.USD(1, 0)
	skill := func(taskType string) []protocol.Skill {
		return []protocol.Skill{{TaskType: taskType, InstantPriceUSD: &price, InstantETAMinutes: &eta}}
	}
	level := func(rep *axp.Conformance, name string) axp.Step {
		t.Helper()
		for _, c := range rep.Checks {
			if c.Level != axp.LevelRequired && c.Level != axp.LevelWarning {
				t.Errorf("check %s has level %q", c.Name, c.Level)
			}
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no %s check in %+v", name, rep.Checks)
		return axp.Step{}
	}

	typo := runAgent(t, ex, "typo seller", false, skill("text-files"))
	rep, err := typo.Conformance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tt := level(rep, "task_types")
	if rep.Passed || rep.Failed != 1 || rep.Warnings != 0 || tt.OK || tt.Level != axp.LevelRequired || tt.Hint == "" {
		t.Fatalf("conformance of a seller whose task type no buyer uses: passed %v, failed %d, warnings %d, task_types %+v",
			rep.Passed, rep.Failed, rep.Warnings, tt)
	}
	if c := level(rep, "refuses_forged_signature"); !c.OK || c.Level != axp.LevelRequired {
		t.Errorf("refuses_forged_signature: %+v", c)
	}

	replays := runAgent(t, ex, "replaying seller", true, skill("text-file"))
	rep, err = replays.Conformance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := level(rep, "refuses_replay")
	if !rep.Passed || rep.Failed != 0 || rep.Warnings != 1 || r.OK || r.Level != axp.LevelWarning || !level(rep, "task_types").OK {
		t.Fatalf("conformance of a seller that only accepts replays: passed %v, failed %d, warnings %d, refuses_replay %+v",
			rep.Passed, rep.Failed, rep.Warnings, r)
	}
}
