package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/daemon/tasks"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/store"
)

// newTasks builds the tasks service over a fixture, with the services it uses.
func newTasks(t *testing.T) (*kerneltest.Fixture, *tasks.Service) {
	f := kerneltest.New(t)
	scr := screening.New(f.K.Base(), f.K)
	life := tasks.NewLifecycle(f.K.Base(), f.K)
	mon := money.New(f.K.Base(), f.K.Rail, f.K.Prom, life)
	tr := trust.New(f.K.Base(), scr, life, f.K, f.K.Caller, mon)
	s := tasks.New(f.K.Base(), f.K.Rail, f.K.Prom, scr, life, f.K, members.New(f.K.Base(), scr, f.K, f.K, f.K.Caller, f.K.Keys), mon, tr)
	mon.Register(f.Reg)
	tr.Register(f.Reg)
	s.Register(f.Reg)
	return f, s
}

var anonymous = axp.Caller{Kind: axp.Anonymous, IP: "192.0.2.1"}

func post(t *testing.T, f *kerneltest.Fixture) *axp.CreatedTask {
	t.Helper()
	out, err := kerneltest.Call(t, f.Reg, contract.CreateTask, anonymous,
		&axp.NewTask{Type: "text-file", Params: map[string]any{"prompt": "a haiku about tides"}, PaymentMethod: "free"})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCreateTaskThenGetItAsBuyerAndStranger(t *testing.T) {
	f, _ := newTasks(t)
	created := post(t, f)
	if created.Status != axp.TaskOpen || created.BuyerToken == "" || created.ID == "" {
		t.Fatalf("created %+v", created)
	}
	var rec *axp.TaskRecord
	f.View(t, func(tx *store.Tx) (err error) { rec, err = tx.Task(created.ID); return err })
	if rec == nil || rec.Type != "text-file" || !rec.OpenUntil.Equal(kerneltest.Start.Add(f.K.Cfg.OpenWindow)) {
		t.Fatalf("stored %+v", rec)
	}

	buyer := axp.Caller{Kind: axp.BuyerToken, Token: created.BuyerToken, IP: "192.0.2.1"}
	got, err := kerneltest.Call(t, f.Reg, contract.GetTask, buyer, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
	if err != nil || got.ID != created.ID || got.Params["prompt"] != "a haiku about tides" {
		t.Fatalf("the buyer's get_task: %+v, %v", got, err)
	}

	_, err = kerneltest.Call(t, f.Reg, contract.GetTask, anonymous, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
	kerneltest.Err(t, err, axp.CodeUnauthorized)
	stranger := axp.Caller{Kind: axp.BuyerToken, Token: "bt_" + "0123456789abcdef0123456789abcdef0123456789abcdef", IP: "192.0.2.9"}
	_, err = kerneltest.Call(t, f.Reg, contract.GetTask, stranger, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
	kerneltest.Err(t, err, axp.CodeUnauthorized)
	// A member who is neither its buyer nor a seller it could go to is refused as such.
	member, _ := f.AddMember(t, axp.Registration{Roles: []string{"buyer"}, Name: "Passer By"})
	_, err = kerneltest.Call(t, f.Reg, contract.GetTask, member, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
	kerneltest.Err(t, err, axp.CodeForbidden)
	_, err = kerneltest.Call(t, f.Reg, contract.GetTask, buyer, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: "tsk_missing"}})
	kerneltest.Err(t, err, axp.CodeNotFound)
}

func TestCreateTaskNamesTheBadField(t *testing.T) {
	f, _ := newTasks(t)
	_, err := kerneltest.Call(t, f.Reg, contract.CreateTask, anonymous, &axp.NewTask{PaymentMethod: "free"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "type" {
		t.Fatalf("refusal names %q, not type", e.Field)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.CreateTask, anonymous, &axp.NewTask{Type: "text-file", PaymentMethod: "barter"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "payment_method" {
		t.Fatalf("refusal names %q, not payment_method", e.Field)
	}
}

func TestOpenTaskExpiresWhenTheClockPassesItsWindow(t *testing.T) {
	f, s := newTasks(t)
	created := post(t, f)
	buyer := axp.Caller{Kind: axp.BuyerToken, Token: created.BuyerToken}
	status := func() string {
		got, err := kerneltest.Call(t, f.Reg, contract.GetTask, buyer, &axp.TaskQuery{TaskRef: axp.TaskRef{ID: created.ID}})
		if err != nil {
			t.Fatal(err)
		}
		return got.Status
	}
	f.Clock.Add(f.K.Cfg.OpenWindow - time.Minute)
	s.Sweep(context.Background())
	if st := status(); st != axp.TaskOpen {
		t.Fatalf("a minute before its window ends the task is %s", st)
	}
	f.Clock.Add(2 * time.Minute)
	s.Sweep(context.Background())
	if st := status(); st != axp.TaskExpired {
		t.Fatalf("after its window the task is %s", st)
	}
}
