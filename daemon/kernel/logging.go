package kernel

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// LogHandler sends records to the console handler and keeps them in the store (batched, off the
// request path) so that /api/admin/log and /api/admin/trace can show them. It adds the trace id of
// the context. Secrets never reach it: callers log fingerprints (protocol.Fingerprint).
type LogHandler struct {
	Console slog.Handler
	Sink    *LogSink
	Keep    slog.Level
	attrs   []slog.Attr
}

func (h *LogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.Keep || h.Console.Enabled(ctx, l)
}

func (h *LogHandler) Handle(ctx context.Context, r slog.Record) error {
	trace := axp.TraceID(ctx)
	if h.Console.Enabled(ctx, r.Level) {
		c := r.Clone()
		if trace != "" {
			c.AddAttrs(slog.String("trace_id", trace))
		}
		h.Console.Handle(ctx, c)
	}
	if r.Level < h.Keep || h.Sink == nil {
		return nil
	}
	e := axp.LogEntry{Time: r.Time.UTC().Truncate(time.Microsecond), Level: levelName(r.Level), Source: "app", Message: r.Message, TraceID: trace}
	add := func(a slog.Attr) bool {
		if a.Key == "source" {
			e.Source = a.Value.String()
			return true
		}
		if e.Attrs == nil {
			e.Attrs = map[string]any{}
		}
		e.Attrs[a.Key] = a.Value.Resolve().Any()
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	h.Sink.add(e)
	return nil
}

func (h *LogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.Console = h.Console.WithAttrs(as)
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *LogHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.Console = h.Console.WithGroup(name)
	return &c
}

func levelName(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warn"
	case l >= slog.LevelInfo:
		return "info"
	}
	return "debug"
}

func ParseLevel(s string) slog.Level {
	switch s {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// LogSink batches log entries into store transactions.
type LogSink struct {
	db      *store.DB
	ch      chan axp.LogEntry
	dropped atomic.Int64
	seq     atomic.Uint32
	done    chan struct{}
	once    sync.Once
	flushed chan chan struct{}
	stopped chan struct{}
}

func NewLogSink(db *store.DB) *LogSink {
	s := &LogSink{db: db, ch: make(chan axp.LogEntry, 8192), done: make(chan struct{}), flushed: make(chan chan struct{}), stopped: make(chan struct{})}
	go s.run()
	return s
}

func (s *LogSink) add(e axp.LogEntry) {
	select {
	case s.ch <- e:
	default:
		s.dropped.Add(1)
	}
}

func (s *LogSink) run() {
	defer close(s.stopped)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	var batch []axp.LogEntry
	write := func() {
		if len(batch) == 0 {
			return
		}
		seq := s.seq.Add(uint32(len(batch))) - uint32(len(batch))
		s.db.Update(func(tx *store.Tx) error { return tx.AppendLog(batch, seq) })
		batch = batch[:0]
	}
	for {
		select {
		case e := <-s.ch:
			batch = append(batch, e)
			if len(batch) >= 512 {
				write()
			}
		case <-t.C:
			write()
		case ack := <-s.flushed:
			for drained := false; !drained; {
				select {
				case e := <-s.ch:
					batch = append(batch, e)
				default:
					drained = true
				}
			}
			write()
			close(ack)
		case <-s.done:
			for {
				select {
				case e := <-s.ch:
					batch = append(batch, e)
				default:
					write()
					return
				}
			}
		}
	}
}

// Flush writes everything queued so far; it returns when it is stored.
func (s *LogSink) Flush() {
	ack := make(chan struct{})
	select {
	case s.flushed <- ack:
		<-ack
	case <-s.done:
	}
}

func (s *LogSink) Close() {
	if s == nil {
		return
	}
	s.once.Do(func() {
		close(s.done)
		<-s.stopped
	})
}

// OutageLog says that calls are refused because the store cannot be reached at most once a
// second, with the number of calls refused since its last line and the latest cause, instead of
// a line per call. The zero value is ready.
type OutageLog struct {
	mu    sync.Mutex
	last  time.Time
	calls int
}

// Note counts one refused call and logs when the last line is a second old.
func (o *OutageLog) Note(ctx context.Context, log *slog.Logger, cause error) {
	o.mu.Lock()
	o.calls++
	now := time.Now()
	if now.Sub(o.last) < time.Second {
		o.mu.Unlock()
		return
	}
	n := o.calls
	o.last, o.calls = now, 0
	o.mu.Unlock()
	log.WarnContext(ctx, "store unreachable: calls answered 503 unavailable", "source", "store", "calls", n, "err", cause.Error())
}
