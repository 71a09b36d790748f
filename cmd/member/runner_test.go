package member_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// recorder is a buyer that records what its runner tells it.
type recorder struct {
	memberkit.Defaults
	mu      sync.Mutex
	offers  map[string][]protocol.OfferSummary
	updates map[string][]string
	anns    []string
}

func (r *recorder) ReceiveOffers(ctx context.Context, in protocol.ReceiveOffersInput) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.offers[in.TaskID] = append(r.offers[in.TaskID], in.Offers...)
	return nil
}

func (r *recorder) TaskUpdate(ctx context.Context, in protocol.TaskUpdateInput) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates[in.TaskID] = append(r.updates[in.TaskID], in.Status)
	return nil
}

func (r *recorder) Announcement(ctx context.Context, in protocol.AnnouncementInput) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.anns = append(r.anns, in.Title)
	return nil
}

func (r *recorder) got(taskID string) ([]protocol.OfferSummary, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]protocol.OfferSummary(nil), r.offers[taskID]...), append([]string(nil), r.updates[taskID]...)
}

// TestPullRunner runs memberkit's pull mode against a real exchange: a pull seller (an Agent with
// Pull set) verifies by answering its practice request, quotes on a task through REST, finds the
// paid job, does it and delivers; a pull buyer's runner is told of the offer and of the task's
// progress, and of an operator announcement. The runners stop with their context.
func TestPullRunner(t *testing.T) {
	ex := newExchange(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)

	price, eta := protocol.USD(2, 0), 15
	skills := []protocol.Skill{{TaskType: "text-file", MinPriceUSD: &price, TypicalETAMinutes: &eta}}
	var verify sync.Mutex
	var verification *axp.Verification
	worked := make(chan string, 4)
	agent := &memberkit.Agent{
		Exchange: ex.URL, Dir: filepath.Join(t.TempDir(), "seller"), Pull: true, PollEvery: 20 * time.Millisecond, Logger: quiet,
		Registration: axp.Registration{Roles: []string{"seller"}, Name: "pull seller", Skills: skills},
		Seller: &memberkit.Worker{Defaults: memberkit.Defaults{Skills: skills}, Logger: quiet,
			Work: func(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
				worked <- job.TaskID
				return memberkit.Deliverable{Content: fmt.Sprintf("pulled %v", job.Params["prompt"]), Filename: "out.txt"}, nil
			}},
		OnVerify: func(v *axp.Verification, err error) {
			verify.Lock()
			defer verify.Unlock()
			if err != nil {
				t.Errorf("pull verification: %v", err)
				return
			}
			verification = v
		},
	}
	agentDone := make(chan error, 1)
	go func() { agentDone <- agent.Run(ctx) }()
	eventually(t, "pull verification", func() error {
		verify.Lock()
		defer verify.Unlock()
		if verification == nil || !verification.Passed {
			return fmt.Errorf("verification %+v", verification)
		}
		return nil
	})
	if verification.Mode != "pull" || verification.State != axp.MemberVerified {
		t.Fatalf("verification %+v", verification)
	}
	screds, err := memberkit.LoadCredentials(memberkit.CredentialsPath(agent.Dir))
	if err != nil {
		t.Fatal(err)
	}

	// The buyer: a member without a server, polled by its own runner.
	reg, err := memberkit.NewClient(ex.URL, "").Register(ctx, axp.Registration{Roles: []string{"buyer"}, Name: "pull buyer"})
	if err != nil {
		t.Fatal(err)
	}
	bkit := memberkit.NewClient(ex.URL, reg.MemberSecret)
	rec := &recorder{offers: map[string][]protocol.OfferSummary{}, updates: map[string][]string{}}
	runner, err := memberkit.NewRunner(bkit, memberkit.Options{Roles: []string{"buyer"}, Buyer: rec, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	runner.PollEvery = 20 * time.Millisecond
	runner.OnVerify = func(*axp.Verification, error) {} // a pull buyer has no practice request to answer
	runnerDone := make(chan error, 1)
	go func() { runnerDone <- runner.Run(ctx) }()

	created, err := bkit.CreateTask(ctx, axp.NewTask{Type: "text-file", Description: "pull please", Params: map[string]any{"prompt": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	var offers []protocol.OfferSummary
	eventually(t, "the pulled offer reaches the buyer", func() error {
		offers, _ = rec.got(created.ID)
		if len(offers) == 0 {
			return fmt.Errorf("no offers yet")
		}
		return nil
	})
	if offers[0].Seller.ID != screds.MemberID || offers[0].PriceUSD != price || offers[0].ETAMinutes != eta {
		t.Fatalf("offer %+v", offers[0])
	}
	if _, err := bkit.Choose(ctx, created.ID, offers[0].OfferID); err != nil {
		t.Fatal(err)
	}
	ex.pay(client.New(ex.URL, reg.MemberSecret), created.ID)
	select {
	case id := <-worked:
		if id != created.ID {
			t.Fatalf("worked on %s", id)
		}
	case <-time.After(deadline):
		t.Fatal("the pull seller never did the job")
	}
	var task *axp.Task
	eventually(t, "delivery", func() error {
		task, err = bkit.Task(ctx, created.ID)
		if err != nil {
			return err
		}
		if task.Status != axp.TaskDelivered {
			return fmt.Errorf("task is %s", task.Status)
		}
		return nil
	})
	eventually(t, "the buyer hears of the delivery", func() error {
		_, ups := rec.got(created.ID)
		for _, s := range ups {
			if s == axp.TaskDelivered {
				return nil
			}
		}
		return fmt.Errorf("updates %v", ups)
	})
	bcl := client.New(ex.URL, reg.MemberSecret)
	resp, err := client.Do(ctx, bcl, contract.GetDeliverable, axp.TaskRef{ID: created.ID})
	if err != nil || string(resp.Body) != "pulled hi" {
		t.Fatalf("deliverable: %v %q", err, resp.Body)
	}
	if _, _, err := client.Call(ctx, bcl, contract.AcceptTask, axp.AcceptInput{TaskRef: axp.TaskRef{ID: created.ID}}); err != nil {
		t.Fatal(err)
	}
	// The pull seller asks to be paid by itself; with no payout address the payout is held.
	eventually(t, "the pull seller requests payment", func() error { return ex.payoutRequested(created.ID, axp.ApprovalHeld) })

	// An operator announcement reaches the pull members' Announcement handlers, once.
	if _, _, err := client.Call(ctx, ex.admin, contract.AdminAnnounce, axp.NewAnnouncement{Severity: "info", Title: "maintenance", Body: "tonight"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "announcement", func() error {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if len(rec.anns) != 1 || rec.anns[0] != "maintenance" {
			return fmt.Errorf("announcements %v", rec.anns)
		}
		return nil
	})
	// The runner marks an announcement read after its handler saw it: wait for the receipt.
	eventually(t, "read receipt", func() error {
		l, err := bkit.Announcements(ctx)
		if err != nil || l.Unread != 0 {
			return fmt.Errorf("announcements left unread: %v %+v", err, l)
		}
		return nil
	})

	cancel()
	for _, done := range []chan error{agentDone, runnerDone} {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(deadline):
			t.Fatal("a runner did not stop with its context")
		}
	}
	if len(worked) != 0 {
		t.Fatalf("the job was done more than once")
	}
}
