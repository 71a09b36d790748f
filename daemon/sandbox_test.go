package daemon_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/protocol"
)

// waitSandbox polls a sandbox job until it ends.
func waitSandbox(t *testing.T, c *client.Client, id string) axp.Sandbox {
	t.Helper()
	var s axp.Sandbox
	eventually(t, func() error {
		s = axp.Sandbox{}
		if err := c.Call(context.Background(), "get_sandbox", map[string]any{"id": id}, &s); err != nil {
			return err
		}
		if s.Status == axp.SandboxRunning {
			return fmt.Errorf("sandbox still running: %+v", s.Steps)
		}
		return nil
	})
	return s
}

func stepNames(s axp.Sandbox) map[string]bool {
	out := map[string]bool{}
	for _, st := range s.Steps {
		out[st.Name] = st.OK
	}
	return out
}

func TestSandboxPushSeller(t *testing.T) {
	e := newMarket(t)
	p := e.newPushSeller("text-file", nil, nil, nil)
	var s axp.Sandbox
	s = *callOp(t, p.c, contract.StartSandbox, axp.SandboxBody{As: "seller"})
	if s.Status != axp.SandboxRunning || s.TaskType != "text-file" {
		t.Fatalf("started: %+v", s)
	}
	job := p.waitCall("do_task", s.SandboxID)
	if job["test"] != true || job["deliver_url"] == "" {
		t.Fatalf("do_task of a sandbox job: %v", job)
	}
	// The seller delivers to the deliver_url with its member secret, as memberkit does.
	callOp(t, p.c, contract.Deliver, axp.DeliverInput{ID: s.SandboxID, Content: "sandbox result", Filename: "r.txt"})
	s = waitSandbox(t, p.c, s.SandboxID)
	steps := stepNames(s)
	for _, n := range []string{"quote", "quote_valid", "do_task", "deliver", "acceptance_checks", "task_update", "review"} {
		if !steps[n] {
			t.Errorf("step %s missing or failed: %+v", n, s.Steps)
		}
	}
	if s.Status != axp.SandboxPassed {
		t.Fatalf("sandbox: %+v", s)
	}
	// Nothing reached the market.
	var st axp.Stats
	st = *callOp(t, e.admin, contract.AdminStats, contract.NoInput{})
	if st.Money.Entries != 0 || st.Tasks[axp.TaskOpen]+st.Tasks[axp.TaskReleased] != 0 {
		t.Errorf("a sandbox job left traces in the market: %+v", st)
	}
}

func TestSandboxPullSeller(t *testing.T) {
	e := newMarket(t)
	s := e.pullSeller("image", nil)
	var sb axp.Sandbox
	sb = *callOp(t, s.c, contract.StartSandbox, axp.SandboxBody{As: "seller"})
	var reqs axp.TaskList
	reqs = *callOp(t, s.c, contract.ListQuoteRequests, contract.NoInput{})
	if len(reqs.Tasks) == 0 || reqs.Tasks[0].ID != sb.SandboxID {
		t.Fatalf("the sandbox job is not a quote request: %+v", reqs.Tasks)
	}
	// It names the buyer a push seller's sandbox quote call names.
	if b := reqs.Tasks[0].Buyer; b == nil || *b != (protocol.BuyerRef{ID: "anonymous", Name: "exchange test buyer", Anonymous: true}) {
		t.Fatalf("sandbox quote request buyer %+v", b)
	}
	callOp(t, s.c, contract.SubmitOffer, axp.OfferInput{ID: sb.SandboxID, QuoteAnswer: protocol.QuoteAnswer{PriceUSD: ptr(axp.USD(2, 0)), ETAMinutes: ptr(10)}})
	var jobs axp.TaskList
	eventually(t, func() error {
		jobs = axp.TaskList{}
		if err := s.c.Call(context.Background(), "list_jobs", nil, &jobs); err != nil {
			return err
		}
		if len(jobs.Tasks) == 0 || jobs.Tasks[0].ID != sb.SandboxID {
			return fmt.Errorf("the sandbox job is not in the jobs list: %+v", jobs.Tasks)
		}
		return nil
	})
	callOp(t, s.c, contract.Deliver, axp.DeliverInput{ID: sb.SandboxID, URL: "data:text/plain;base64,aGVsbG8="})
	sb = waitSandbox(t, s.c, sb.SandboxID)
	if sb.Status != axp.SandboxPassed {
		t.Fatalf("pull sandbox: %+v", sb)
	}
}

func TestSandboxPushBuyerAndRefusals(t *testing.T) {
	e := newMarket(t)
	b := e.newPushSeller("", nil, nil, map[string]any{"roles": []string{"buyer"}, "skills": []map[string]any{}})
	var sb axp.Sandbox
	sb = *callOp(t, b.c, contract.StartSandbox, axp.SandboxBody{As: "buyer"})
	sb = waitSandbox(t, b.c, sb.SandboxID)
	steps := stepNames(sb)
	for _, n := range []string{"receive_offers", "task_update:paid", "task_update:delivered", "review"} {
		if !steps[n] {
			t.Errorf("buyer step %s: %+v", n, sb.Steps)
		}
	}
	if sb.Status != axp.SandboxPassed {
		t.Fatalf("buyer sandbox: %+v", sb)
	}
	// A buyer cannot play a seller, a pull buyer has nothing to be pushed, and sandboxes are private.
	if err := b.c.Call(context.Background(), "start_sandbox", map[string]any{"as": "seller"}, nil); !client.IsCode(err, axp.CodeForbidden) {
		t.Errorf("buyer as seller: %v", err)
	}
	pb := e.register(map[string]any{"roles": []string{"buyer"}})
	if err := pb.c.Call(context.Background(), "start_sandbox", map[string]any{"as": "buyer"}, nil); !client.IsCode(err, axp.CodeConflict) {
		t.Errorf("pull buyer: %v", err)
	}
	if err := pb.c.Call(context.Background(), "get_sandbox", map[string]any{"id": sb.SandboxID}, nil); !client.IsCode(err, axp.CodeNotFound) {
		t.Errorf("another member's sandbox: %v", err)
	}
}
