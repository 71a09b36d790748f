package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
)

// Recorded data: every batch (a minute's prices, a poll's new news items, a signal) is written
// with its chain entry in one transaction. Prices are keyed by coin and recorded time, news by
// entity and first-seen time, so that "the last one at or before T" is one Seek and a step back.

// chainRecord is a stored chain entry with the ids of its items, in leaf order (for a market
// batch, its coins: the ids are PriceID(coin, recorded_at)).
type chainRecord struct {
	V int `json:"v"`
	axp.ChainEntry
	Items []string `json:"items"`
}

// priceRecord is a stored price: the item is rebuilt from the key and this.
type priceRecord struct {
	P   string `json:"p"`
	Seq int64  `json:"s"`
}

// newsRecord is a stored news item.
type newsRecord struct {
	V    int          `json:"v"`
	Item axp.NewsItem `json:"item"`
	Key  string       `json:"key"` // its dedup key (hex)
	Seq  int64        `json:"seq"`
}

// signalRecord is a stored signal: the chained item and its score.
type signalRecord struct {
	V int `json:"v"`
	axp.Signal
}

// PriceID is the id of the price of coin recorded at ms (unix milliseconds).
func PriceID(coin string, ms int64) string { return "px:" + coin + "@" + strconv.FormatInt(ms, 10) }

func be64(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

func priceKey(coin string, ms int64) []byte {
	return append([]byte(coin+"\x00"), be64(ms)...)
}

// appendFill is the fill of pages of the append-only buckets (chain, prices, news, signals): keys
// arrive in order (per coin for prices), so pages split full rather than half full.
const appendFill = 0.95

// appendChain adds a batch of items (JSON, in leaf order, with the ids stored for them) to the chain.
func (t *Tx) appendChain(kind string, at time.Time, ids []string, items [][]byte) (*axp.ChainEntry, error) {
	leaves := make([][32]byte, len(items))
	for i, it := range items {
		h, err := axp.LeafHash(it)
		if err != nil {
			return nil, fmt.Errorf("chain %s item %s: %w", kind, ids[i], err)
		}
		leaves[i] = h
	}
	root := axp.MerkleRoot(leaves)
	e := axp.ChainEntry{Seq: 1, Kind: kind, RecordedAt: at.UTC().Truncate(time.Millisecond), Count: len(items),
		Root: hex.EncodeToString(root[:]), Prev: axp.ZeroLink}
	head, err := t.ChainHead()
	if err != nil {
		return nil, err
	}
	if head != nil {
		e.Seq, e.Prev = head.Seq+1, head.Link
	}
	if e.Link, err = e.ComputeLink(); err != nil {
		return nil, err
	}
	b := t.bucket(bChain)
	b.SetFillPercent(appendFill)
	if err := putJSON(b, be64(e.Seq), &chainRecord{V: 1, ChainEntry: e, Items: ids}); err != nil {
		return nil, err
	}
	return &e, nil
}

// ChainHead is the newest chain entry, or nil.
func (t *Tx) ChainHead() (*axp.ChainEntry, error) {
	k, raw := t.bucket(bChain).Cursor().Last()
	if k == nil {
		return nil, nil
	}
	var r chainRecord
	if err := decode(raw, &r); err != nil {
		return nil, fmt.Errorf("decode chain entry: %w", err)
	}
	return &r.ChainEntry, nil
}

// Chain lists up to limit entries after seq, oldest first.
func (t *Tx) Chain(after int64, limit int) ([]axp.ChainEntry, error) {
	out := []axp.ChainEntry{}
	c := t.bucket(bChain).Cursor()
	for k, raw := c.Seek(be64(after + 1)); k != nil && len(out) < limit; k, raw = c.Next() {
		var r chainRecord
		if err := decode(raw, &r); err != nil {
			return nil, fmt.Errorf("decode chain entry: %w", err)
		}
		out = append(out, r.ChainEntry)
	}
	return out, nil
}

func (t *Tx) chainRecord(seq int64) (*chainRecord, error) {
	var r chainRecord
	ok, err := getJSON(t.bucket(bChain), be64(seq), &r)
	if !ok || err != nil {
		return nil, err
	}
	return &r, nil
}

// RecordPrices records one poll's prices (coin -> decimal string) at at, chained as one batch.
func (t *Tx) RecordPrices(at time.Time, prices map[string]string) (*axp.ChainEntry, error) {
	at = at.UTC().Truncate(time.Millisecond)
	ms := at.UnixMilli()
	coins := make([]string, 0, len(prices))
	for c := range prices {
		coins = append(coins, c)
	}
	slices.Sort(coins)
	items := make([][]byte, len(coins))
	b := t.bucket(bPrices)
	b.SetFillPercent(appendFill)
	for i, c := range coins {
		if b.Get(priceKey(c, ms)) != nil {
			return nil, fmt.Errorf("a price of %s is already recorded at %s", c, at.Format(time.RFC3339Nano))
		}
		raw, err := json.Marshal(axp.PriceItem{Kind: "price", Coin: c, Currency: "usd", Price: prices[c], RecordedAt: at})
		if err != nil {
			return nil, err
		}
		items[i] = raw
	}
	e, err := t.appendChain(axp.ChainMarket, at, coins, items)
	if err != nil {
		return nil, err
	}
	for _, c := range coins {
		if err := putJSON(b, priceKey(c, ms), &priceRecord{P: prices[c], Seq: e.Seq}); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Price is a recorded price.
type Price struct {
	Coin       string
	Price      string
	RecordedAt time.Time
	Seq        int64
}

func decodePrice(k, raw []byte) (Price, error) {
	var r priceRecord
	if err := decode(raw, &r); err != nil {
		return Price{}, fmt.Errorf("decode price: %w", err)
	}
	i := bytes.IndexByte(k, 0)
	ms := int64(binary.BigEndian.Uint64(k[i+1:]))
	return Price{Coin: string(k[:i]), Price: r.P, RecordedAt: time.UnixMilli(ms).UTC(), Seq: r.Seq}, nil
}

// PriceAsOf is the last price of coin recorded at or before asOf and not before notBefore, or nil.
func (t *Tx) PriceAsOf(coin string, asOf, notBefore time.Time) (*Price, error) {
	c := t.bucket(bPrices).Cursor()
	prefix := []byte(coin + "\x00")
	k, raw := c.Seek(priceKey(coin, asOf.UnixMilli()+1))
	if k == nil {
		k, raw = c.Last()
	} else {
		k, raw = c.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, prefix) {
		return nil, nil
	}
	p, err := decodePrice(k, raw)
	if err != nil || p.RecordedAt.Before(notBefore) {
		return nil, err
	}
	return &p, nil
}

// PricesBetween calls fn for each price of coin recorded in [from, to], oldest first; fn returning
// false stops.
func (t *Tx) PricesBetween(coin string, from, to time.Time, fn func(Price) bool) error {
	c := t.bucket(bPrices).Cursor()
	end := priceKey(coin, to.UnixMilli())
	for k, raw := c.Seek(priceKey(coin, from.UnixMilli())); k != nil && bytes.Compare(k, end) <= 0; k, raw = c.Next() {
		p, err := decodePrice(k, raw)
		if err != nil {
			return err
		}
		if !fn(p) {
			return nil
		}
	}
	return nil
}

// PriceAfter is the first price of coin recorded after at, or nil.
func (t *Tx) PriceAfter(coin string, at time.Time) (*Price, error) {
	c := t.bucket(bPrices).Cursor()
	k, raw := c.Seek(priceKey(coin, at.UnixMilli()+1))
	if k == nil || !bytes.HasPrefix(k, []byte(coin+"\x00")) {
		return nil, nil
	}
	p, err := decodePrice(k, raw)
	return &p, err
}

// RecordedCoins lists the coins with recorded prices, sorted.
func (t *Tx) RecordedCoins() []string {
	var out []string
	c := t.bucket(bPrices).Cursor()
	for k, _ := c.First(); k != nil; {
		i := bytes.IndexByte(k, 0)
		coin := string(k[:i])
		out = append(out, coin)
		k, _ = c.Seek([]byte(coin + "\x01"))
	}
	return out
}

// PrunePrices deletes prices recorded before cutoff (their chain entries stay: the chain keeps its
// links). It returns how many it deleted.
func (t *Tx) PrunePrices(cutoff time.Time) (int, error) {
	b := t.bucket(bPrices)
	var dead [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil; {
		i := bytes.IndexByte(k, 0)
		coin := string(k[:i])
		end := priceKey(coin, cutoff.UnixMilli())
		for ; k != nil && bytes.HasPrefix(k, []byte(coin+"\x00")) && bytes.Compare(k, end) < 0; k, _ = c.Next() {
			dead = append(dead, bytes.Clone(k))
		}
		k, _ = c.Seek([]byte(coin + "\x01"))
	}
	for _, k := range dead {
		if err := b.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(dead), nil
}

// NewsKey is the dedup key of a feed item: its guid, else its link, within its feed.
func NewsKey(feed, guid, link string) string {
	id := guid
	if id == "" {
		id = link
	}
	sum := sha256.Sum256([]byte(feed + "\x00" + id))
	return hex.EncodeToString(sum[:])
}

// RecordNews records the items not seen before (by NewsKey), chained as one batch; it returns the
// entry (nil when nothing was new) and the items it recorded.
func (t *Tx) RecordNews(at time.Time, items []axp.NewsItem) (*axp.ChainEntry, []axp.NewsItem, error) {
	keys := t.bucket(bNewsKeys)
	var fresh []axp.NewsItem
	var freshKeys []string
	seen := map[string]bool{}
	for _, it := range items {
		k := NewsKey(it.Feed, it.GUID, it.Link)
		if seen[k] || keys.Get([]byte(k)) != nil {
			continue
		}
		seen[k] = true
		fresh, freshKeys = append(fresh, it), append(freshKeys, k)
	}
	if len(fresh) == 0 {
		return nil, nil, nil
	}
	ids := make([]string, len(fresh))
	raws := make([][]byte, len(fresh))
	for i, it := range fresh {
		raw, err := json.Marshal(it)
		if err != nil {
			return nil, nil, err
		}
		ids[i], raws[i] = it.ID, raw
	}
	e, err := t.appendChain(axp.ChainNews, at, ids, raws)
	if err != nil {
		return nil, nil, err
	}
	news := t.bucket(bNews)
	news.SetFillPercent(appendFill)
	for i, it := range fresh {
		if err := putJSON(news, []byte(it.ID), &newsRecord{V: 1, Item: it, Key: freshKeys[i], Seq: e.Seq}); err != nil {
			return nil, nil, err
		}
		if err := keys.Put([]byte(freshKeys[i]), []byte(it.ID)); err != nil {
			return nil, nil, err
		}
		for _, ent := range it.Entities {
			if err := t.bucket(bNewsEntity).Put(newsEntityKey(ent, it.FirstSeen, it.ID), nil); err != nil {
				return nil, nil, err
			}
		}
	}
	return e, fresh, nil
}

func newsEntityKey(entity string, at time.Time, id string) []byte {
	k := append([]byte(strings.ToLower(entity)+"\x00"), be64(at.UnixMilli())...)
	return append(append(k, 0), id...)
}

// News reads a recorded news item, or nil.
func (t *Tx) News(id string) (*axp.NewsItem, error) {
	var r newsRecord
	ok, err := getJSON(t.bucket(bNews), []byte(id), &r)
	if !ok || err != nil {
		return nil, err
	}
	return &r.Item, nil
}

// NewsAsOf lists up to limit items naming entity first seen at or before asOf and not before
// notBefore, newest first.
func (t *Tx) NewsAsOf(entity string, asOf, notBefore time.Time, limit int) ([]axp.NewsItem, error) {
	prefix := []byte(strings.ToLower(entity) + "\x00")
	c := t.bucket(bNewsEntity).Cursor()
	k, _ := c.Seek(append(bytes.Clone(prefix), be64(asOf.UnixMilli()+1)...))
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	out := []axp.NewsItem{}
	for ; k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, _ = c.Prev() {
		rest := k[len(prefix):]
		if len(rest) < 9 {
			continue
		}
		if int64(binary.BigEndian.Uint64(rest[:8])) < notBefore.UnixMilli() {
			break
		}
		it, err := t.News(string(rest[9:]))
		if err != nil {
			return nil, err
		}
		if it != nil {
			out = append(out, *it)
		}
	}
	return out, nil
}

// PruneNews deletes news items first seen before cutoff, with their index rows (their dedup keys
// go too: an item still in a feed after retention would be recorded again as new).
func (t *Tx) PruneNews(cutoff time.Time) (int, error) {
	var dead []newsRecord
	err := each(t.bucket(bNews), false, func(_ []byte, r *newsRecord) (bool, error) {
		if !r.Item.FirstSeen.Before(cutoff) {
			return false, nil
		}
		dead = append(dead, *r)
		return true, nil
	})
	if err != nil {
		return 0, err
	}
	for _, r := range dead {
		for _, ent := range r.Item.Entities {
			if err := t.bucket(bNewsEntity).Delete(newsEntityKey(ent, r.Item.FirstSeen, r.Item.ID)); err != nil {
				return 0, err
			}
		}
		if err := t.bucket(bNewsKeys).Delete([]byte(r.Key)); err != nil {
			return 0, err
		}
		if err := t.bucket(bNews).Delete([]byte(r.Item.ID)); err != nil {
			return 0, err
		}
	}
	return len(dead), nil
}

func dueKey(due time.Time, id string) []byte {
	return append(append(be64(due.UnixMilli()), 0), id...)
}

// RecordSignal records a published signal and chains it as a batch of one.
func (t *Tx) RecordSignal(s *axp.Signal) (*axp.ChainEntry, error) {
	raw, err := json.Marshal(s.SignalItem)
	if err != nil {
		return nil, err
	}
	e, err := t.appendChain(axp.ChainSignal, s.PublishedAt, []string{s.ID}, [][]byte{raw})
	if err != nil {
		return nil, err
	}
	s.Seq, s.Outcome = e.Seq, axp.OutcomeOpen
	if err := t.bucket(bSignalsOpen).Put(dueKey(s.Due, s.ID), nil); err != nil {
		return nil, err
	}
	b := t.bucket(bSignals)
	b.SetFillPercent(appendFill)
	return e, putJSON(b, []byte(s.ID), &signalRecord{V: 1, Signal: *s})
}

// Signal reads a signal, or nil.
func (t *Tx) Signal(id string) (*axp.Signal, error) {
	var r signalRecord
	ok, err := getJSON(t.bucket(bSignals), []byte(id), &r)
	if !ok || err != nil {
		return nil, err
	}
	return &r.Signal, nil
}

// DueSignals lists up to limit open signals due at or before now, oldest due first.
func (t *Tx) DueSignals(now time.Time, limit int) ([]axp.Signal, error) {
	var out []axp.Signal
	c := t.bucket(bSignalsOpen).Cursor()
	for k, _ := c.First(); k != nil && len(out) < limit; k, _ = c.Next() {
		if len(k) < 9 || int64(binary.BigEndian.Uint64(k[:8])) > now.UnixMilli() {
			break
		}
		s, err := t.Signal(string(k[9:]))
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, *s)
		}
	}
	return out, nil
}

// ScoreSignal stores a signal's score: only the score fields change (the chained item stays as
// recorded), and it leaves the open index.
func (t *Tx) ScoreSignal(s *axp.Signal) error {
	old, err := t.Signal(s.ID)
	if err != nil {
		return err
	}
	if old == nil {
		return fmt.Errorf("signal %s is not recorded", s.ID)
	}
	if old.Outcome != axp.OutcomeOpen {
		return errors.New("signal " + s.ID + " is scored already")
	}
	scored := *old
	scored.Outcome, scored.ExitPrice, scored.ExitAt, scored.ReturnPct, scored.Drawdown, scored.ScoredAt =
		s.Outcome, s.ExitPrice, s.ExitAt, s.ReturnPct, s.Drawdown, s.ScoredAt
	if err := t.bucket(bSignalsOpen).Delete(dueKey(old.Due, old.ID)); err != nil {
		return err
	}
	return putJSON(t.bucket(bSignals), []byte(s.ID), &signalRecord{V: 1, Signal: scored})
}

// SignalsSince calls fn for each signal published at or after from, oldest first.
func (t *Tx) SignalsSince(from time.Time, fn func(*axp.Signal) bool) error {
	c := t.bucket(bSignals).Cursor()
	for k, raw := c.Seek([]byte(axp.IDFloor("sig", from))); k != nil && bytes.HasPrefix(k, []byte("sig_")); k, raw = c.Next() {
		var r signalRecord
		if err := decode(raw, &r); err != nil {
			return fmt.Errorf("decode signal %s: %w", k, err)
		}
		if !fn(&r.Signal) {
			return nil
		}
	}
	return nil
}

// itemJSON is the recorded item of id as it is stored now, or nil.
func (t *Tx) itemJSON(id string) ([]byte, error) {
	switch {
	case strings.HasPrefix(id, "px:"):
		coin, ms, ok := strings.Cut(strings.TrimPrefix(id, "px:"), "@")
		n, err := strconv.ParseInt(ms, 10, 64)
		if !ok || err != nil {
			return nil, nil
		}
		raw := t.bucket(bPrices).Get(priceKey(coin, n))
		if raw == nil {
			return nil, nil
		}
		p, err := decodePrice(priceKey(coin, n), raw)
		if err != nil {
			return nil, err
		}
		return json.Marshal(axp.PriceItem{Kind: "price", Coin: coin, Currency: "usd", Price: p.Price, RecordedAt: p.RecordedAt})
	case strings.HasPrefix(id, "nws_"):
		it, err := t.News(id)
		if it == nil || err != nil {
			return nil, err
		}
		return json.Marshal(it)
	case strings.HasPrefix(id, "sig_"):
		s, err := t.Signal(id)
		if s == nil || err != nil {
			return nil, err
		}
		return json.Marshal(s.SignalItem)
	}
	return nil, nil
}

// itemSeq is the chain entry of a recorded item, 0 when it is not recorded.
func (t *Tx) itemSeq(id string) (int64, error) {
	switch {
	case strings.HasPrefix(id, "px:"):
		coin, ms, _ := strings.Cut(strings.TrimPrefix(id, "px:"), "@")
		n, _ := strconv.ParseInt(ms, 10, 64)
		var r priceRecord
		ok, err := getJSON(t.bucket(bPrices), priceKey(coin, n), &r)
		if !ok || err != nil {
			return 0, err
		}
		return r.Seq, nil
	case strings.HasPrefix(id, "nws_"):
		var r newsRecord
		ok, err := getJSON(t.bucket(bNews), []byte(id), &r)
		if !ok || err != nil {
			return 0, err
		}
		return r.Seq, nil
	case strings.HasPrefix(id, "sig_"):
		s, err := t.Signal(id)
		if s == nil || err != nil {
			return 0, err
		}
		return s.Seq, nil
	}
	return 0, nil
}

// Proof builds the inclusion proof of a recorded item from what is stored now (so a stored item
// changed since it was chained gives a proof that does not verify), or nil when the item is not
// recorded (never, or pruned).
func (t *Tx) Proof(id string) (*axp.Proof, error) {
	seq, err := t.itemSeq(id)
	if err != nil || seq == 0 {
		return nil, err
	}
	rec, err := t.chainRecord(seq)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("chain entry %d of %s is missing", seq, id)
	}
	leaves := make([][32]byte, len(rec.Items))
	index := -1
	var item []byte
	for i, other := range rec.Items {
		if rec.Kind == axp.ChainMarket {
			other = PriceID(other, rec.RecordedAt.UnixMilli())
		}
		raw, err := t.itemJSON(other)
		if err != nil {
			return nil, err
		}
		if raw == nil {
			// A sibling pruned away: its leaf cannot be recomputed, so the proof cannot be
			// built (prices of one minute and news of one poll are pruned together).
			return nil, nil
		}
		if leaves[i], err = axp.LeafHash(raw); err != nil {
			return nil, err
		}
		if other == id {
			index, item = i, raw
		}
	}
	if index < 0 {
		return nil, fmt.Errorf("chain entry %d does not list %s", seq, id)
	}
	canon, err := axp.Canonical(item)
	if err != nil {
		return nil, err
	}
	head, err := t.ChainHead()
	if err != nil {
		return nil, err
	}
	return &axp.Proof{V: 1, Algorithm: axp.ProofAlgorithm, ID: id, Item: canon, LeafHash: hex.EncodeToString(leaves[index][:]),
		Index: index, Path: axp.MerklePath(leaves, index), Entry: rec.ChainEntry, Head: *head}, nil
}
