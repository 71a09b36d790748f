package axp

import (
	"sort"
	"time"

	"github.com/axp-exchange/axp/protocol"
)

// QuoteRecord is a seller's live answer on a task: an offer, clarifying questions or a decline.
// A seller has at most one per task; a new answer replaces the old.
type QuoteRecord struct {
	V          int                  `json:"v"`
	TaskID     string               `json:"task_id"`
	SellerID   string               `json:"seller_id"`
	SellerName string               `json:"seller_name"`
	Kind       string               `json:"kind"` // price, clarify, decline
	OfferID    string               `json:"offer_id,omitempty"`
	Answer     protocol.QuoteAnswer `json:"answer"`
	Fee        Fee                  `json:"fee"`
	Instant    bool                 `json:"instant"`
	Pull       bool                 `json:"pull"`
	LatencyMS  int64                `json:"latency_ms"`
	Screening  *Screening           `json:"screening,omitempty"` // verdict on the note, questions or reason
	CreatedAt  time.Time            `json:"created_at"`
}

// SellerStats is a seller's measured history, updated in the transactions that make it.
type SellerStats struct {
	V              int     `json:"v"`
	SellerID       string  `json:"seller_id"`
	Jobs           int     `json:"jobs"`             // jobs started (chosen and funded)
	Completed      int     `json:"completed"`        // ended released without a dispute
	Disputed       int     `json:"disputed"`         // jobs disputed
	Deliveries     int     `json:"deliveries"`       // jobs delivered at least once
	FirstPass      int     `json:"first_pass"`       // accepted on the first delivery with checks passed
	OnTime         int     `json:"on_time"`          // first delivery within the offer's ETA
	QuoteLatencyMS []int64 `json:"quote_latency_ms"` // the last 50 push quote latencies
}

// MedianQuoteMS is the median of the recorded quote latencies, or nil.
func (s *SellerStats) MedianQuoteMS() *int64 {
	if len(s.QuoteLatencyMS) == 0 {
		return nil
	}
	l := append([]int64(nil), s.QuoteLatencyMS...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	m := l[len(l)/2]
	if len(l)%2 == 0 {
		m = (l[len(l)/2-1] + l[len(l)/2]) / 2
	}
	return &m
}

// AddQuoteLatency records a push quote's latency, keeping the last 50.
func (s *SellerStats) AddQuoteLatency(ms int64) {
	s.QuoteLatencyMS = append(s.QuoteLatencyMS, ms)
	if len(s.QuoteLatencyMS) > 50 {
		s.QuoteLatencyMS = s.QuoteLatencyMS[len(s.QuoteLatencyMS)-50:]
	}
}

func rate(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	r := float64(n*1000/d) / 1000
	return &r
}

// Reliability renders the measured record shown on offers.
func (s *SellerStats) Reliability() Reliability {
	return Reliability{OnTimeRate: rate(s.OnTime, s.Deliveries), FirstPassRate: rate(s.FirstPass, s.Deliveries),
		DisputeRate: rate(s.Disputed, s.Completed+s.Disputed), MedianQuoteMillis: s.MedianQuoteMS()}
}

// Ranking orders offered to buyers.
var Rankings = []string{"value", "price", "eta", "reliability"}

// reliabilityScore is 0 (best) to 1 (worst); a seller with no record scores 0.5.
func reliabilityScore(r Reliability) float64 {
	score, n := 0.0, 0.0
	for _, x := range []*float64{r.OnTimeRate, r.FirstPassRate} {
		if x != nil {
			score += 1 - *x
			n++
		}
	}
	if r.DisputeRate != nil {
		score += *r.DisputeRate
		n++
	}
	if n == 0 {
		return 0.5
	}
	return score / n
}

// RankOffers sorts offers by a ranking. value (the default) weighs price 50%, ETA 30% and
// reliability 20%, each scaled to the best and worst among the offers, lower is better:
//
//	value = 0.5 * (price - min)/(max - min) + 0.3 * (eta - min)/(max - min) + 0.2 * unreliability
//
// where unreliability is the mean of (1 - on-time rate), (1 - first-pass rate) and dispute rate
// over the rates known (0.5 with none). Ties break by price, then ETA, then offer time.
func RankOffers(offers []Offer, by string) {
	if len(offers) == 0 {
		return
	}
	minP, maxP := offers[0].PriceUSD, offers[0].PriceUSD
	minE, maxE := offers[0].ETAMinutes, offers[0].ETAMinutes
	for _, o := range offers {
		minP, maxP = min(minP, o.PriceUSD), max(maxP, o.PriceUSD)
		minE, maxE = min(minE, o.ETAMinutes), max(maxE, o.ETAMinutes)
	}
	norm := func(v, lo, hi float64) float64 {
		if hi == lo {
			return 0
		}
		return (v - lo) / (hi - lo)
	}
	value := func(o Offer) float64 {
		return 0.5*norm(float64(o.PriceUSD), float64(minP), float64(maxP)) +
			0.3*norm(float64(o.ETAMinutes), float64(minE), float64(maxE)) + 0.2*reliabilityScore(o.Reliability)
	}
	tie := func(a, b Offer) bool {
		if a.PriceUSD != b.PriceUSD {
			return a.PriceUSD < b.PriceUSD
		}
		if a.ETAMinutes != b.ETAMinutes {
			return a.ETAMinutes < b.ETAMinutes
		}
		return a.CreatedAt.Before(b.CreatedAt)
	}
	sort.SliceStable(offers, func(i, j int) bool {
		a, b := offers[i], offers[j]
		switch by {
		case "price":
			return tie(a, b)
		case "eta":
			if a.ETAMinutes != b.ETAMinutes {
				return a.ETAMinutes < b.ETAMinutes
			}
			return tie(a, b)
		case "reliability":
			ra, rb := reliabilityScore(a.Reliability), reliabilityScore(b.Reliability)
			if ra != rb {
				return ra < rb
			}
			return tie(a, b)
		}
		va, vb := value(a), value(b)
		if va != vb {
			return va < vb
		}
		return tie(a, b)
	})
}
