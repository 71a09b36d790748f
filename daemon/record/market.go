// Package record holds what the exchange's recorders and recorded-data answers compute: reading a
// price source (the CoinGecko simple-price shape, or any JSON answer through a path mapping) and
// RSS/Atom feeds (gofeed), matching news entities, scoring strategy signals and the reference
// backtest, all in exact decimals.
//
// It must not touch the store, log, or know HTTP doors: the daemon fetches through its guarded
// caller with the clients it passes in, stores batches in one transaction each and answers.
package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp"
)

// Price source kinds (key market_source).
const (
	SourceCoinGecko = "coingecko"
	SourceJSONPath  = "jsonpath"
)

// maxAnswer caps what a price source or a feed may answer.
const maxAnswer = 4 << 20

// PriceSource reads the current prices of the configured coins: coin -> a decimal string in US
// dollars. A coin the source did not answer is left out (a gap, never filled in).
type PriceSource struct {
	kind   string
	url    string
	coins  []string
	paths  map[string]string
	client *http.Client
}

// NewPriceSource checks the market configuration. coingecko: base is the API root (e.g.
// https://api.coingecko.com/api/v3; /simple/price?ids=..&vs_currencies=usd is appended) and coins
// are its coin ids. jsonpath: base is fetched as it is and paths maps each coin to a dotted path
// into the JSON answer (data.bitcoin.usd, or result.0.price for arrays); the value may be a JSON
// number or a string holding one.
func NewPriceSource(kind, base string, coins []string, paths map[string]string, client *http.Client) (*PriceSource, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("market_source_url must be an http(s) URL")
	}
	if len(coins) == 0 {
		return nil, fmt.Errorf("market_coins names no coin")
	}
	for _, c := range coins {
		if c == "" || strings.ContainsAny(c, "\x00,@ ") || len(c) > 60 {
			return nil, fmt.Errorf("market_coins: %q is not a coin id (letters, digits, - and _)", c)
		}
	}
	s := &PriceSource{kind: kind, url: base, coins: slices.Clone(coins), paths: paths, client: client}
	switch kind {
	case SourceCoinGecko:
		if !strings.HasSuffix(u.Path, "/simple/price") {
			u.Path = strings.TrimRight(u.Path, "/") + "/simple/price"
		}
		q := u.Query()
		q.Set("ids", strings.Join(coins, ","))
		q.Set("vs_currencies", "usd")
		q.Set("precision", "full")
		u.RawQuery = q.Encode()
		s.url = u.String()
	case SourceJSONPath:
		for _, c := range coins {
			if strings.TrimSpace(paths[c]) == "" {
				return nil, fmt.Errorf("market_paths has no path for %q: jsonpath needs one per coin", c)
			}
		}
	default:
		return nil, fmt.Errorf("market_source %q is not coingecko or jsonpath", kind)
	}
	return s, nil
}

// Coins are the configured coins.
func (s *PriceSource) Coins() []string { return s.coins }

// Kind names the source.
func (s *PriceSource) Kind() string { return s.kind }

// Fetch reads the prices now.
func (s *PriceSource) Fetch(ctx context.Context) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the price source answered HTTP %d", resp.StatusCode)
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("the price source's answer is not JSON: %w", err)
	}
	out := map[string]string{}
	for _, c := range s.coins {
		var v any
		if s.kind == SourceCoinGecko {
			v = walk(doc, []string{c, "usd"})
		} else {
			v = walk(doc, strings.Split(s.paths[c], "."))
		}
		if p, ok := PriceText(v); ok {
			out[c] = p
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the price source's answer holds none of the configured coins")
	}
	return out, nil
}

// walk follows a dotted path through objects and arrays; nil when it leads nowhere.
func walk(v any, path []string) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// PriceText is a positive price read exactly from a JSON number or a string holding one, written
// as a plain decimal (no exponent, no trailing zeros).
func PriceText(v any) (string, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = strings.TrimSpace(x)
	default:
		return "", false
	}
	r, ok := axp.Decimal(s).Rat()
	if !ok || r.Sign() <= 0 || r.Cmp(big.NewRat(1_000_000_000_000, 1)) > 0 {
		return "", false
	}
	return Plain(r), true
}

// Plain writes an exact decimal r as a plain decimal; r must have a finite decimal expansion of at
// most 30 places (more is rounded half up).
func Plain(r *big.Rat) string {
	places := 0
	ten := big.NewRat(10, 1)
	for x := new(big.Rat).Set(r); !x.IsInt() && places < 30; places++ {
		x.Mul(x, ten)
	}
	return string(roundRat(r, places))
}
