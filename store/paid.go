package store

import (
	"encoding/binary"
	"strings"

	"github.com/axp-exchange/axp"
)

// PaidCallKey is the key of a paid call's authorization: its payer and nonce, which the token
// accepts once.
func PaidCallKey(payer, nonce string) string {
	return strings.ToLower(payer) + "\x00" + strings.ToLower(nonce)
}

// PaidCall reads a paid call by its key, or nil.
func (t *Tx) PaidCall(key string) (*axp.PaidCall, error) {
	var p axp.PaidCall
	ok, err := getJSON(t.bucket(bPaidCalls), []byte(key), &p)
	if !ok || err != nil {
		return nil, err
	}
	return &p, nil
}

// PutPaidCall stores a paid call, keeping the index of open ones and of settlement transactions.
func (t *Tx) PutPaidCall(p *axp.PaidCall) error {
	p.V = 1
	key := []byte(PaidCallKey(p.Payer, p.Nonce))
	open := t.bucket(bPaidOpen)
	var err error
	if p.Status == axp.PaidSettled || p.Status == axp.PaidVoided {
		err = open.Delete(key)
	} else {
		err = open.Put(key, nil)
	}
	if err != nil {
		return err
	}
	if p.TxHash != "" {
		if err := t.bucket(bPaidTxs).Put([]byte(strings.ToLower(p.TxHash)), key); err != nil {
			return err
		}
	}
	return putJSON(t.bucket(bPaidCalls), key, p)
}

// DeletePaidCall forgets a paid call whose payment was let go (nothing was charged).
func (t *Tx) DeletePaidCall(p *axp.PaidCall) error {
	key := []byte(PaidCallKey(p.Payer, p.Nonce))
	if err := t.bucket(bPaidOpen).Delete(key); err != nil {
		return err
	}
	if p.TxHash != "" {
		if err := t.bucket(bPaidTxs).Delete([]byte(strings.ToLower(p.TxHash))); err != nil {
			return err
		}
	}
	return t.bucket(bPaidCalls).Delete(key)
}

// OpenPaidCalls lists the paid calls neither settled nor voided (at most limit).
func (t *Tx) OpenPaidCalls(limit int) ([]axp.PaidCall, error) {
	var out []axp.PaidCall
	c := t.bucket(bPaidOpen).Cursor()
	for k, _ := c.First(); k != nil && len(out) < limit; k, _ = c.Next() {
		p, err := t.PaidCall(string(k))
		if err != nil {
			return nil, err
		}
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}

// PaidCallByTx is the paid call a settlement transaction settled, or nil.
func (t *Tx) PaidCallByTx(txHash string) (*axp.PaidCall, error) {
	key := t.bucket(bPaidTxs).Get([]byte(strings.ToLower(txHash)))
	if key == nil {
		return nil, nil
	}
	return t.PaidCall(string(key))
}

// EachPaidCall calls fn for every paid call, newest key order not implied.
func (t *Tx) EachPaidCall(fn func(*axp.PaidCall) bool) error {
	return each(t.bucket(bPaidCalls), false, func(_ []byte, p *axp.PaidCall) (bool, error) { return fn(p), nil })
}

// UseTrial counts one trial call of caller on day, unless limit calls were counted already; it
// reports whether the call may go on and how many calls were counted with it.
func (t *Tx) UseTrial(day, caller string, limit int) (bool, int, error) {
	b := t.bucket(bTrials)
	key := []byte(day + "\x00" + caller)
	n := 0
	if raw := b.Get(key); len(raw) == 4 {
		n = int(binary.BigEndian.Uint32(raw))
	}
	if n >= limit {
		return false, n, nil
	}
	n++
	return true, n, b.Put(key, binary.BigEndian.AppendUint32(nil, uint32(n)))
}

// ReturnTrial gives back a trial call whose call failed.
func (t *Tx) ReturnTrial(day, caller string) error {
	b := t.bucket(bTrials)
	key := []byte(day + "\x00" + caller)
	raw := b.Get(key)
	if len(raw) != 4 {
		return nil
	}
	n := binary.BigEndian.Uint32(raw)
	if n <= 1 {
		return b.Delete(key)
	}
	return b.Put(key, binary.BigEndian.AppendUint32(nil, n-1))
}

// PruneTrials deletes the trial counts of days before day (keys sort by day).
func (t *Tx) PruneTrials(day string) (int, error) {
	b := t.bucket(bTrials)
	c := b.Cursor()
	n := 0
	for k, _ := c.First(); k != nil && string(k[:min(len(k), len(day))]) < day; k, _ = c.First() {
		if err := b.Delete(k); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Connector reads a connector, or nil.
func (t *Tx) Connector(id string) (*axp.Connector, error) {
	var c axp.Connector
	ok, err := getJSON(t.bucket(bConnectors), []byte(id), &c)
	if !ok || err != nil {
		return nil, err
	}
	return &c, nil
}

// ConnectorByName is the accepted or live connector with this tool name, or nil.
func (t *Tx) ConnectorByName(name string) (*axp.Connector, error) {
	id := t.bucket(bConnNames).Get([]byte(name))
	if id == nil {
		return nil, nil
	}
	return t.Connector(string(id))
}

// PutConnector stores a connector; once it has a name, the name points at it.
func (t *Tx) PutConnector(c *axp.Connector) error {
	c.V = 1
	if c.Name != "" && (c.Status == axp.ConnectorAccepted || c.Status == axp.ConnectorLive) {
		if err := t.bucket(bConnNames).Put([]byte(c.Name), []byte(c.ID)); err != nil {
			return err
		}
	}
	return putJSON(t.bucket(bConnectors), []byte(c.ID), c)
}

// Connectors lists connectors, newest first, with status if not empty.
func (t *Tx) Connectors(status string) ([]axp.Connector, error) {
	out := []axp.Connector{}
	err := each(t.bucket(bConnectors), true, func(_ []byte, c *axp.Connector) (bool, error) {
		if status == "" || c.Status == status {
			out = append(out, *c)
		}
		return true, nil
	})
	return out, err
}
