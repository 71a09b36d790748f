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
// handed to onFail exactly once.
type Pusher struct {
	caller   *Caller
	attempts int
	backoff  time.Duration
	onFail   func(Job, error)

	mu     sync.RWMutex // guards closed against sends on queue
	closed bool
	queue  chan Job
	stop   chan struct{} // closed by Close: retry waits end at once
	wg     sync.WaitGroup
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
		queue:    make(chan Job, max(queueSize, 1)),
		stop:     make(chan struct{}),
	}
	for range max(workers, 1) {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

// Push queues job for delivery. It never blocks: when the queue is full, or the Pusher is closed,
// the job fails at once through onFail (ErrQueueFull, ErrClosed).
func (p *Pusher) Push(job Job) {
	p.mu.RLock()
	if p.closed {
		p.mu.RUnlock()
		p.fail(job, fmt.Errorf("%s: %w", job.Label, ErrClosed))
		return
	}
	select {
	case p.queue <- job:
		p.mu.RUnlock()
	default:
		p.mu.RUnlock()
		p.fail(job, fmt.Errorf("%s: %w", job.Label, ErrQueueFull))
	}
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
	if p.closed {
		p.mu.Unlock()
		p.wg.Wait()
		return
	}
	p.closed = true
	close(p.stop)
	close(p.queue)
	p.mu.Unlock()
	p.wg.Wait()
	p.caller.CloseIdleConnections()
}

func (p *Pusher) work() {
	defer p.wg.Done()
	for job := range p.queue {
		p.run(job)
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
