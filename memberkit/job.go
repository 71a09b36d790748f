package memberkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Deliverable is the result of a job, delivered inline to the exchange, which hosts it (spec
// 2.5). Content is text up to 256 KB; content that is not valid UTF-8 travels as a base64 data:
// URL instead, under the same limit.
type Deliverable struct {
	Content  string
	Filename string // default: deliverable.txt (or deliverable)
	MimeType string // default: text/plain; charset=utf-8
	Note     string
}

// Check refuses an empty or too large deliverable.
func (d Deliverable) Check() error {
	switch {
	case len(d.Content) == 0:
		return errors.New("the deliverable is empty")
	case len(d.Content) > protocol.MaxInlineDeliverable:
		return fmt.Errorf("the deliverable is %d bytes; at most %d (256 KB) can be delivered", len(d.Content), protocol.MaxInlineDeliverable)
	}
	return nil
}

// input is the input of the deliver call: {content, filename, mime_type}, or {url: data:...} for
// binary content.
func (d Deliverable) input(taskID string) axp.DeliverInput {
	in := axp.DeliverInput{ID: taskID, Filename: d.Filename, MimeType: d.MimeType, Note: d.Note}
	if utf8.ValidString(d.Content) {
		in.Content = d.Content
	} else {
		mime := d.MimeType
		if mime == "" {
			mime = "application/octet-stream"
		}
		in.URL = dataURL(mime, []byte(d.Content))
	}
	return in
}

// Job is a do_task call: the job's input and the means to deliver its result.
type Job struct {
	protocol.DoTaskInput

	bg       context.Context
	deliver  func(ctx context.Context, in protocol.DoTaskInput, d Deliverable) (*protocol.Screening, error)
	spawn    func(f func())
	screened *protocol.Screening
}

// Removed is what the exchange took out of the job's last delivery: the kinds of contact details
// (email, url, phone, ...) and of credentials (private_key, password, ...), each sorted; both
// empty when it delivered as sent. Every delivery with removals counts against the seller: a few
// within 24 hours bring a warning, more a suspension.
func (j *Job) Removed() (contacts, credentials []string) {
	if j.screened == nil {
		return nil, nil
	}
	return j.screened.Removed, j.screened.Credentials
}

// NewJob builds a job whose Deliver posts to in.DeliverURL through c, with work started by Go
// running under ctx (for tests, and for code that fetches jobs itself).
func NewJob(ctx context.Context, in protocol.DoTaskInput, c *Client) *Job {
	return &Job{DoTaskInput: in, bg: ctx, deliver: c.deliverTo}
}

// Context is the context work on the job should run under once do_task has been answered: it
// ends when the server or runner stops, not when the do_task call ends.
func (j *Job) Context() context.Context {
	if j.bg == nil {
		return context.Background()
	}
	return j.bg
}

// Go runs f in the background under Context(). The server or runner that made the job waits for
// it when it shuts down, so a delivery in flight is not cut off.
func (j *Job) Go(f func(ctx context.Context)) {
	ctx := j.Context()
	if j.spawn == nil {
		go f(ctx)
		return
	}
	j.spawn(func() { f(ctx) })
}

// Deliver posts the result to the job's deliver_url ({content, filename, mime_type}, with the
// member secret as Bearer token). The exchange runs the task's acceptance checks on it; a refusal
// comes back as a *protocol.Error saying why.
func (j *Job) Deliver(ctx context.Context, d Deliverable) error {
	if err := d.Check(); err != nil {
		return err
	}
	if j.deliver == nil {
		return errors.New("memberkit: this job has no delivery path (build jobs with NewJob)")
	}
	sc, err := j.deliver(ctx, j.DoTaskInput, d)
	if err == nil {
		j.screened = sc
	}
	return err
}

// WorkFunc does a job and returns what to deliver.
type WorkFunc func(ctx context.Context, job *Job) (Deliverable, error)

// PrivateError is a job's failure whose details stay with the seller: do_task declines with
// Reason, neutral words the buyer sees, while OnDone and the log get Err (a command's error
// output, say).
type PrivateError struct {
	Reason string
	Err    error
}

func (e *PrivateError) Error() string { return e.Err.Error() }
func (e *PrivateError) Unwrap() error { return e.Err }

// Worker is a Seller made of skills and a work function. It quotes from the skills (Defaults),
// starts Work on each do_task and delivers its result. do_task is answered as soon as Work returns
// or FailFast passes, whichever comes first: a Work that fails within FailFast makes the answer
// accepted: false with the error as the reason, so the buyer can choose another offer; a later
// failure is logged and given to OnDone. Work goes on after the answer, under Job.Context.
type Worker struct {
	Defaults
	// Work does one job. Required.
	Work WorkFunc
	// FailFast is how long do_task waits for Work to fail before it accepts the job
	// (0: 2 s; it must stay well under the 10 s call budget).
	FailFast time.Duration
	// Timeout bounds one job's work and delivery (0: no bound beyond the server's life).
	Timeout time.Duration
	// OnDone, when set, is told how each job ended: nil after a delivery, else why it failed.
	OnDone func(job *Job, err error)
	// Logger logs late failures (nil: slog.Default()).
	Logger *slog.Logger
}

// DoTask starts the work and answers whether the job is taken.
func (w *Worker) DoTask(ctx context.Context, job *Job) (protocol.DoTaskOutput, error) {
	if w.Work == nil {
		return protocol.DoTaskOutput{}, errors.New("memberkit: Worker.Work is not set")
	}
	failFast := w.FailFast
	if failFast <= 0 {
		failFast = 2 * time.Second
	}
	type result struct {
		d   Deliverable
		err error
	}
	done := make(chan result, 1)
	decided := make(chan struct{}) // closed once do_task's answer is settled
	var declined bool              // written before decided is closed
	job.Go(func(bg context.Context) {
		ctx, cancel := bg, context.CancelFunc(func() {})
		if w.Timeout > 0 {
			ctx, cancel = context.WithTimeout(bg, w.Timeout)
		}
		defer cancel()
		d, err := safeWork(w.Work, ctx, job)
		if err == nil {
			err = d.Check()
		}
		done <- result{d, err}
		<-decided
		if declined {
			return // do_task said no; OnDone was told
		}
		if err == nil {
			err = job.Deliver(ctx, d)
		}
		if err != nil {
			w.logger().Error("job failed after it was accepted", "task", job.TaskID, "err", err)
		}
		if w.OnDone != nil {
			w.OnDone(job, err)
		}
	})
	timer := time.NewTimer(failFast)
	defer timer.Stop()
	var out protocol.DoTaskOutput
	var err error
	select {
	case r := <-done:
		if r.err != nil {
			declined = true
			out = protocol.DoTaskOutput{Accepted: false, Reason: reason(r.err)}
			if w.OnDone != nil {
				w.OnDone(job, r.err)
			}
		} else {
			out.Accepted = true
		}
	case <-timer.C:
		out.Accepted = true
	case <-ctx.Done():
		// The exchange stopped waiting; the work goes on and delivers if it can.
		err = ctx.Err()
	}
	close(decided)
	return out, err
}

func (w *Worker) logger() *slog.Logger {
	if w.Logger != nil {
		return w.Logger
	}
	return slog.Default()
}

// safeWork runs work, turning a panic into an error so that one bad job cannot stop the member.
func safeWork(work WorkFunc, ctx context.Context, job *Job) (d Deliverable, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the work panicked: %v", p)
		}
	}()
	return work(ctx, job)
}

// reason makes an error a one-line reason of at most 300 characters.
func reason(err error) string {
	var pe *PrivateError
	if errors.As(err, &pe) {
		return pe.Reason
	}
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		cut := 297
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
