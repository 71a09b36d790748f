package kerneltest_test

import (
	"context"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/store"
)

func TestClockMovesTheKernelsNow(t *testing.T) {
	f := kerneltest.New(t)
	if !f.K.Now().Equal(kerneltest.Start) || !f.K.Started.Equal(kerneltest.Start) {
		t.Fatalf("now %v, started %v", f.K.Now(), f.K.Started)
	}
	f.Clock.Add(90 * time.Minute)
	if want := kerneltest.Start.Add(90 * time.Minute); !f.K.Now().Equal(want) {
		t.Fatalf("now %v, want %v", f.K.Now(), want)
	}
	later := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Clock.Set(later)
	if !f.K.Now().Equal(later) {
		t.Fatalf("now %v, want %v", f.K.Now(), later)
	}
}

func TestOutboxRecordsNoticesOnlyAfterCommit(t *testing.T) {
	f := kerneltest.New(t)
	_, err := f.K.Mutate(context.Background(), "test", func(ch *kernel.Change) (any, error) {
		ch.Notify(kernel.Notice{MemberID: "mem_a", Msg: kernel.Push{Name: "task_update"}})
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.K.Mutate(context.Background(), "test", func(ch *kernel.Change) (any, error) {
		ch.Notify(kernel.Notice{MemberID: "mem_b", Msg: kernel.Push{Name: "task_update"}})
		return nil, axp.Conflict("refused", "")
	})
	if sent := f.Sent(); len(sent) != 1 || sent[0].MemberID != "mem_a" {
		t.Fatalf("sent %+v", sent)
	}
}

func TestStoreIsRealAndMembersAuthenticate(t *testing.T) {
	f := kerneltest.New(t, func(c *kernel.Config) { c.BoardPostsPerHour = 0 })
	if f.K.BoardPosts != nil || f.K.Registrations == nil {
		t.Fatal("the options did not reach the limiters")
	}
	ann, secret := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Ann"})
	if ann.Kind != axp.MemberCall || ann.MemberID == "" || f.Member(t, secret).MemberID != ann.MemberID {
		t.Fatalf("member %+v", ann)
	}
	var m *axp.Member
	f.View(t, func(tx *store.Tx) (err error) { m, err = tx.Member(ann.MemberID); return err })
	if m == nil || m.State != axp.MemberVerified {
		t.Fatalf("stored %+v", m)
	}
}

func TestCallChecksAccessSchemaAndFillsThePath(t *testing.T) {
	f := kerneltest.New(t)
	var path map[string]string
	var got *axp.TaskQuery
	pipeline.Handle(f.Reg, contract.GetTask, func(ctx context.Context, c *pipeline.Call, in *axp.TaskQuery) (*axp.Task, error) {
		path, got = c.Path, in
		return &axp.Task{ID: in.ID, Status: axp.TaskOpen}, nil
	})
	buyer := axp.Caller{Kind: axp.BuyerToken, Token: "bt_x"}
	out, err := kerneltest.Call(t, f.Reg, contract.GetTask, buyer, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_1"}, Sort: "price"})
	if err != nil || out.ID != "tsk_1" || path["id"] != "tsk_1" || got.Sort != "price" {
		t.Fatalf("answer %+v, path %v, input %+v, %v", out, path, got, err)
	}
	// The input goes through the operation's schema.
	_, err = kerneltest.Call(t, f.Reg, contract.GetTask, buyer, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_1"}, Sort: "colour"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "sort" {
		t.Fatalf("refusal names %q", e.Field)
	}
	// CallAt gives path parameters the input does not hold.
	if _, err = kerneltest.CallAt(t, f.Reg, contract.GetTask, buyer, map[string]string{"id": "tsk_3"}, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_2"}}); err != nil || path["id"] != "tsk_3" {
		t.Fatalf("path %v, %v", path, err)
	}
	// The access level is checked before the handler runs.
	path = nil
	_, err = kerneltest.Call(t, f.Reg, contract.GetTask, axp.Caller{Kind: axp.Anonymous}, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_1"}})
	if kerneltest.Err(t, err, axp.CodeUnauthorized); path != nil {
		t.Fatal("the handler ran for a caller the access level refuses")
	}
	// An operation without a handler answers unavailable, as in the exchange.
	_, err = kerneltest.Call(t, f.Reg, contract.AdminApprovals, kerneltest.Operator, &axp.ApprovalsQuery{})
	kerneltest.Err(t, err, axp.CodeUnavailable)
	// The precheck runs before the handler, as it does before a paid call is charged.
	ran := false
	pipeline.Precheck(f.Reg, contract.PaidTradingRisk, func(in *axp.TradingRiskQuery) error {
		return axp.Invalid("stop", "equals entry", "")
	})
	pipeline.Handle(f.Reg, contract.PaidTradingRisk, func(ctx context.Context, c *pipeline.Call, in *axp.TradingRiskQuery) (*axp.TradingRiskResult, error) {
		ran = true
		return &axp.TradingRiskResult{}, nil
	})
	_, err = kerneltest.Call(t, f.Reg, contract.PaidTradingRisk, axp.Caller{Kind: axp.Anonymous}, &axp.TradingRiskQuery{Account: "1", RiskPct: "1", Entry: "2", Stop: "2"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "stop" || ran {
		t.Fatalf("refusal names %q; handler ran: %v", e.Field, ran)
	}
}
