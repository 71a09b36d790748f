package outbound

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/axp-exchange/axp/protocol"
)

// failing answers HTTP 503 to the first n tool calls, then delivers, telling delivered of each
// task id it took.
func failing(t *testing.T, n int32, delivered chan<- string) (*member, *atomic.Int32) {
	var calls atomic.Int32
	inner := mcpServer(t, map[string]toolFunc{
		"task_update": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			id, _ := req.GetArguments()["task_id"].(string)
			delivered <- id
			return structured(map[string]any{"received": true}), nil
		},
	})
	m := newMember(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= n {
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	return m, &calls
}

type failure struct {
	job Job
	err error
}

func update(m *member, taskID string) Job {
	return Job{Label: "task_update " + taskID, Target: m.target(), Tool: "task_update", Input: protocol.TaskUpdateInput{TaskID: taskID, Status: "paid"}}
}

func TestPusherRetriesThenSucceeds(t *testing.T) {
	delivered := make(chan string, 1)
	m, calls := failing(t, 2, delivered)
	fails := make(chan failure, 1)
	p := NewPusher(&Caller{}, 2, 5, time.Millisecond, func(j Job, err error) { fails <- failure{j, err} })
	defer p.Close()

	p.Push(update(m, "t_1"))
	if got := within(t, delivered, 5*time.Second, "the delivery"); got != "t_1" {
		t.Fatalf("delivered %q", got)
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
	select {
	case f := <-fails:
		t.Fatalf("onFail called: %v", f.err)
	default:
	}
}

func TestPusherGivesUp(t *testing.T) {
	m, calls := failing(t, 1000, make(chan string, 1))
	fails := make(chan failure, 1)
	p := NewPusher(&Caller{}, 1, 3, time.Millisecond, func(j Job, err error) { fails <- failure{j, err} })
	defer p.Close()

	p.Push(update(m, "t_9"))
	f := within(t, fails, 5*time.Second, "onFail")
	if f.job.Label != "task_update t_9" || !strings.Contains(f.err.Error(), "gave up after 3 attempt(s)") {
		t.Fatalf("failure %+v", f)
	}
	if ce := callError(t, f.err, KindHTTP); ce.Status != http.StatusServiceUnavailable {
		t.Fatalf("cause %+v", ce)
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
}

func TestPusherDoesNotRetryPermanentErrors(t *testing.T) {
	m := newMember(t, mcpServer(t, nil))
	fails := make(chan failure, 1)
	p := NewPusher(&Caller{}, 1, 5, time.Millisecond, func(j Job, err error) { fails <- failure{j, err} })
	defer p.Close()

	job := update(m, "t_2")
	job.Target.PlatformKey = []byte("forged")
	p.Push(job)
	f := within(t, fails, 5*time.Second, "onFail")
	if !strings.Contains(f.err.Error(), "not retried after attempt 1") {
		t.Fatalf("failure %v", f.err)
	}
	if m.refusals() != 1 {
		t.Fatalf("%d refused calls, want 1", m.refusals())
	}
}

func TestPusherCallbackJob(t *testing.T) {
	got := make(chan string, 1)
	m := newMember(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body strings.Builder
		buf := make([]byte, 512)
		for {
			n, err := r.Body.Read(buf)
			body.Write(buf[:n])
			if err != nil {
				break
			}
		}
		got <- body.String()
	}))
	p := NewPusher(&Caller{}, 1, 2, time.Millisecond, func(j Job, err error) { t.Errorf("onFail: %v", err) })
	defer p.Close()
	p.Push(Job{Label: "callback t_3", Target: m.target(), CallbackURL: m.target().MCPURL, Input: map[string]string{"task_id": "t_3"}})
	if body := within(t, got, 5*time.Second, "the callback"); body != `{"task_id":"t_3"}` {
		t.Fatalf("callback body %q", body)
	}
}

func TestPusherQueueFull(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	m := newMember(t, mcpServer(t, map[string]toolFunc{
		"task_update": func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-release
			return structured(map[string]any{"received": true}), nil
		},
	}))
	var mu sync.Mutex
	var failed []failure
	p := newPusher(&Caller{}, 1, 1, time.Millisecond, func(j Job, err error) {
		mu.Lock()
		failed = append(failed, failure{j, err})
		mu.Unlock()
	}, 2)

	p.Push(update(m, "t_running"))
	within(t, started, 5*time.Second, "the first job to start")
	p.Push(update(m, "t_q1"))
	p.Push(update(m, "t_q2"))

	pushed := make(chan struct{})
	go func() { p.Push(update(m, "t_overflow")); close(pushed) }()
	within(t, pushed, 5*time.Second, "Push to return on a full queue")
	mu.Lock()
	if len(failed) != 1 || failed[0].job.Label != "task_update t_overflow" || !errors.Is(failed[0].err, ErrQueueFull) {
		t.Fatalf("failures %+v", failed)
	}
	mu.Unlock()

	close(release)
	p.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(failed) != 1 {
		t.Fatalf("failures after Close %+v", failed)
	}
}

func TestPusherCloseDrains(t *testing.T) {
	delivered := make(chan string, 20)
	m, _ := failing(t, 0, delivered)
	p := NewPusher(&Caller{}, 2, 3, time.Millisecond, func(j Job, err error) { t.Errorf("onFail %s: %v", j.Label, err) })
	for i := range 10 {
		p.Push(update(m, "t_"+string(rune('a'+i))))
	}
	p.Close()
	if len(delivered) != 10 {
		t.Fatalf("%d of 10 jobs delivered before Close returned", len(delivered))
	}

	late := make(chan error, 1)
	p2 := NewPusher(&Caller{}, 1, 1, time.Millisecond, func(j Job, err error) { late <- err })
	p2.Close()
	p2.Close() // twice is harmless
	p2.Push(update(m, "t_late"))
	if err := within(t, late, time.Second, "onFail after Close"); !errors.Is(err, ErrClosed) {
		t.Fatalf("late push: %v", err)
	}
}

// Close does not wait out a long backoff: the job fails at once with its last error.
func TestPusherCloseAbandonsRetryWaits(t *testing.T) {
	m, calls := failing(t, 1000, make(chan string, 1))
	fails := make(chan failure, 1)
	p := NewPusher(&Caller{}, 1, 5, time.Hour, func(j Job, err error) { fails <- failure{j, err} })
	p.Push(update(m, "t_slow"))
	for deadline := time.Now().Add(5 * time.Second); calls.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the job never ran")
		}
		time.Sleep(time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	within(t, closed, 5*time.Second, "Close")
	f := within(t, fails, time.Second, "onFail")
	if !strings.Contains(f.err.Error(), "shutting down") || calls.Load() != 1 {
		t.Fatalf("failure %v after %d calls", f.err, calls.Load())
	}
}

func TestPusherDelay(t *testing.T) {
	p := &Pusher{backoff: time.Second}
	for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 7: time.Minute, 100: time.Minute} {
		if got := p.delay(attempt); got != want {
			t.Errorf("delay(%d) = %s, want %s", attempt, got, want)
		}
	}
	p.backoff = 2 * time.Hour
	if got := p.delay(3); got != 2*time.Hour {
		t.Errorf("a base above the cap: %s", got)
	}
}

// Jobs to one member arrive in the order they were pushed, even when the first needs retries
// (several workers would otherwise deliver the later ones meanwhile); a member that is slow to
// answer holds up no other member's jobs.
func TestPusherKeepsOrderPerDestination(t *testing.T) {
	delivered := make(chan string, 10)
	m, _ := failing(t, 2, delivered)
	p := NewPusher(&Caller{}, 4, 5, 20*time.Millisecond, func(j Job, err error) { t.Errorf("onFail %s: %v", j.Label, err) })
	defer p.Close()
	for _, id := range []string{"t_accepted", "t_released", "t_reviewed"} {
		p.Push(update(m, id))
	}
	other := make(chan string, 1)
	o, _ := failing(t, 0, other)
	p.Push(update(o, "t_other"))
	if got := within(t, other, 5*time.Second, "the other member's job"); got != "t_other" {
		t.Fatalf("other member got %s", got)
	}
	var order []string
	for range 3 {
		order = append(order, within(t, delivered, 5*time.Second, "a job"))
	}
	if strings.Join(order, " ") != "t_accepted t_released t_reviewed" {
		t.Fatalf("delivered in the order %v", order)
	}
}
