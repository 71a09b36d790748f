package outbound

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Errors a job fails with at once, without being tried.
var (
	ErrQueueFull = errors.New("the outbound queue is full, so the event was dropped")
	ErrClosed    = errors.New("the exchange is shutting down, so the event was dropped")
)

// DefaultQueueSize is the number of jobs a Pusher holds before Push fails them at once.
const DefaultQueueSize = 1024

// MaxBackoff caps the wait between two attempts (unless the base backoff is longer still).
const MaxBackoff = time.Minute

// Job is one event to deliver: a member tool call to Target, or, when CallbackURL is set, a signed
// JSON post of Input to that URL (signed with Target.PlatformKey and Target.MemberID).
type Job struct {
	Label       string // names the job in errors and logs, e.g. "task_update t_1 -> m_2"
	Target      Target
	Tool        string
	Input       any
	CallbackURL string
	TraceID     string
	// Done, when set, is told the job's outcome once: nil when delivered, else the error it
	// gave up with (after onFail).
	Done func(err error)
}

// Pusher delivers jobs in the background with a few workers, retrying failures that may pass
// (see Retryable) with exponential backoff. Push never blocks. Every job that is not delivered is
// handed to onFail exactly once. Jobs to one destination (a member, a callback URL) are delivered
// one at a time in the order they were pushed, so a party hears of a task's statuses in the order
// they happened, even when one of them needs a retry; jobs to different destinations run in
// parallel.
type Pusher struct {
	caller   *Caller
	attempts int
	backoff  time.Duration
	onFail   func(Job, error)
	limit    int // jobs waiting to start that Push accepts

	mu      sync.Mutex
	closed  bool
	lines   map[string][]Job // per destination: the job running (or about to) first, then those waiting
	waiting int              // jobs pushed and not started yet
	ready   chan string      // destinations with jobs and no worker; each is in it at most once
	stop    chan struct{}    // closed by Close: retry waits end at once
	wg      sync.WaitGroup
}

// NewPusher starts workers (at least 1) that try each job up to attempts times (at least 1),
// waiting backoff, then twice that, and so on (capped at MaxBackoff) between attempts. onFail,
// when set, is told of each job that was not delivered and why; it is called from a worker, or
// from Push itself when the job is refused at once.
func NewPusher(caller *Caller, workers int, attempts int, backoff time.Duration, onFail func(job Job, err error)) *Pusher {
	return newPusher(caller, workers, attempts, backoff, onFail, DefaultQueueSize)
}

func newPusher(caller *Caller, workers, attempts int, backoff time.Duration, onFail func(Job, error), queueSize int) *Pusher {
	if caller == nil {
		caller = &Caller{}
	}
	if onFail == nil {
		onFail = func(Job, error) {}
	}
	p := &Pusher{
		caller:   caller,
		attempts: max(attempts, 1),
		backoff:  max(backoff, 0),
		onFail:   onFail,
		limit:    max(queueSize, 1),
		lines:    map[string][]Job{},
		stop:     make(chan struct{}),
	}
	// A destination enters ready only when its line was empty, and every line holds a job that
	// was counted against the limit (or is running), so ready never fills.
	p.ready = make(chan string, p.limit+max(workers, 1))
	for range max(workers, 1) {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

// destination names where a job goes: jobs with the same destination keep their order.
func (j Job) destination() string {
	if j.CallbackURL != "" {
		return "url " + j.CallbackURL
	}
	return "member " + j.Target.MemberID + " " + j.Target.MCPURL
}

// Push queues job for delivery. It never blocks: when the queue is full, or the Pusher is closed,
// the job fails at once through onFail (ErrQueueFull, ErrClosed).
func (p *Pusher) Push(job Job) {
	p.mu.Lock()
	switch {
	case p.closed:
		p.mu.Unlock()
		p.fail(job, fmt.Errorf("%s: %w", job.Label, ErrClosed))
		return
	case p.waiting >= p.limit:
		p.mu.Unlock()
		p.fail(job, fmt.Errorf("%s: %w", job.Label, ErrQueueFull))
		return
	}
	dest := job.destination()
	line := p.lines[dest]
	p.lines[dest] = append(line, job)
	p.waiting++
	if len(line) == 0 {
		p.ready <- dest
	}
	p.mu.Unlock()
}

// Close stops taking jobs and waits for the workers to finish. Jobs already queued still get an
// attempt (each bounded by the call timeout), but no job waits for a retry any more: one that
// would have fails through onFail with its last error. Then it closes the idle connections of the
// caller's own transport (the exchange closes its pusher when it shuts down). A nil Pusher (an
// exchange whose start failed before it had one) has nothing to close.
func (p *Pusher) Close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.stop)
		close(p.ready)
	}
	p.mu.Unlock()
	p.wg.Wait()
	p.caller.CloseIdleConnections()
}

// work takes a destination and delivers its line in order until it is empty.
func (p *Pusher) work() {
	defer p.wg.Done()
	for dest := range p.ready {
		for {
			p.mu.Lock()
			job := p.lines[dest][0]
			p.waiting--
			p.mu.Unlock()
			p.run(job)
			p.mu.Lock()
			rest := p.lines[dest][1:]
			if len(rest) == 0 {
				delete(p.lines, dest)
				p.mu.Unlock()
				break
			}
			p.lines[dest] = rest
			p.mu.Unlock()
		}
	}
}

func (p *Pusher) run(job Job) {
	ctx := context.Background()
	if job.TraceID != "" {
		ctx = WithTrace(ctx, job.TraceID)
	}
	var err error
	for attempt := 1; ; attempt++ {
		if job.CallbackURL != "" {
			err = p.caller.PostJSON(ctx, job.CallbackURL, job.Target.PlatformKey, job.Target.MemberID, job.Input)
		} else {
			_, err = p.caller.Call(ctx, job.Target, job.Tool, job.Input, nil)
		}
		if err == nil {
			if job.Done != nil {
				job.Done(nil)
			}
			return
		}
		if !Retryable(err) {
			p.fail(job, fmt.Errorf("%s: not retried after attempt %d: %w", job.Label, attempt, err))
			return
		}
		if attempt >= p.attempts {
			p.fail(job, fmt.Errorf("%s: gave up after %d attempt(s): %w", job.Label, attempt, err))
			return
		}
		t := time.NewTimer(p.delay(attempt))
		select {
		case <-t.C:
		case <-p.stop:
			t.Stop()
			p.fail(job, fmt.Errorf("%s: not retried after attempt %d, shutting down: %w", job.Label, attempt, err))
			return
		}
	}
}

// fail hands an undelivered job to onFail, then to its Done.
func (p *Pusher) fail(job Job, err error) {
	p.onFail(job, err)
	if job.Done != nil {
		job.Done(err)
	}
}

// delay is the wait after the given failed attempt (1-based): backoff, doubled each time, capped.
func (p *Pusher) delay(attempt int) time.Duration {
	d := p.backoff
	for i := 1; i < attempt && d < MaxBackoff; i++ {
		d *= 2
	}
	if d > MaxBackoff && p.backoff <= MaxBackoff {
		d = MaxBackoff
	}
	return d
}
