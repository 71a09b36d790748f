package kernel

import (
	"math"
	"sync"
	"time"

	"github.com/axp-exchange/axp"
	"golang.org/x/time/rate"
)

// Limiter keeps one token bucket per key (an IP or a member id) for one rule.
type Limiter struct {
	name  string
	every time.Duration // one token per every
	burst int
	mu    sync.Mutex
	m     map[string]*bucket
	hint  string
}

type bucket struct {
	lim  *rate.Limiter
	used time.Time
}

// NewLimiter allows n calls per period per key (burst n). n <= 0 disables the rule.
func NewLimiter(name string, n int, period time.Duration, hint string) *Limiter {
	if n <= 0 {
		return nil
	}
	return &Limiter{name: name, every: period / time.Duration(n), burst: n, m: map[string]*bucket{}, hint: hint}
}

// allow takes one token of key's bucket. refund gives it back: calls that end up changing nothing
// (refused input, replays, failures) do not count against the limit.
func (l *Limiter) allow(key string, now time.Time) (refund func(), err error) {
	if l == nil {
		return nil, nil
	}
	l.mu.Lock()
	b := l.m[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(rate.Every(l.every), l.burst)}
		l.m[key] = b
	}
	b.used = now
	r := b.lim.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	if delay > 0 {
		r.CancelAt(now)
	}
	if len(l.m) > 10000 {
		l.sweep(now)
	}
	l.mu.Unlock()
	if delay <= 0 {
		// CancelAt restores the token only when given a time not after the reservation's.
		return func() { r.CancelAt(now) }, nil
	}
	secs := int(math.Ceil(delay.Seconds()))
	return nil, &axp.Error{Code: axp.CodeRateLimited, Message: "rate limit reached: " + l.name,
		Hint: l.hint + "; retry in " + (time.Duration(secs) * time.Second).String(), RetryAfter: secs}
}

// peek refuses key when its bucket has no token left, taking none: a request can be refused from
// its headers, before its body is read, and the token is taken when the call is admitted.
func (l *Limiter) peek(key string, now time.Time) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	tokens := float64(1)
	if b := l.m[key]; b != nil {
		tokens = b.lim.TokensAt(now)
	}
	l.mu.Unlock()
	if tokens >= 1 {
		return nil
	}
	secs := max(1, int(math.Ceil((1-tokens)*l.every.Seconds())))
	return &axp.Error{Code: axp.CodeRateLimited, Message: "rate limit reached: " + l.name,
		Hint: l.hint + "; retry in " + (time.Duration(secs) * time.Second).String(), RetryAfter: secs}
}

// sweep forgets keys idle long enough for their bucket to be full again.
func (l *Limiter) sweep(now time.Time) {
	full := l.every * time.Duration(l.burst)
	for k, b := range l.m {
		if now.Sub(b.used) > full {
			delete(l.m, k)
		}
	}
}
