package store

import (
	"bytes"

	"github.com/axp-exchange/axp"
)

// The members' board (schema version 8). Post ids are time-sortable, so the posts bucket and the
// indexes keyed by them are in posting order: the thread index and the tag index read newest first
// from a cursor with Seek and Prev, the replies of a thread oldest first with Seek and Next, and
// the operator's queue holds only the posts that wait.

// BoardPost loads a post (a thread or a reply), or nil.
func (t *Tx) BoardPost(id string) (*axp.BoardPost, error) {
	var p axp.BoardPost
	ok, err := getJSON(t.bucket(bBoardPosts), []byte(id), &p)
	if !ok || err != nil {
		return nil, err
	}
	return &p, nil
}

// PutBoardPost stores a post and keeps the indexes: a visible thread is listed under each of its
// tags, a reply under its thread, and a pending post in the operator's queue.
func (t *Tx) PutBoardPost(p *axp.BoardPost) error {
	p.V = 1
	pending := t.bucket(bBoardPending)
	var err error
	if p.Status == axp.BoardPending {
		err = pending.Put([]byte(p.ID), nil)
	} else {
		err = pending.Delete([]byte(p.ID))
	}
	if err != nil {
		return err
	}
	if p.Kind == axp.BoardReply {
		if err := t.bucket(bBoardReplies).Put(pair(p.ThreadID, p.ID), nil); err != nil {
			return err
		}
	} else {
		threads, tags := t.bucket(bBoardThreads), t.bucket(bBoardTags)
		for _, tag := range p.Tags {
			if p.Status == axp.BoardVisible {
				err = tags.Put(pair(tag, p.ID), nil)
			} else {
				err = tags.Delete(pair(tag, p.ID))
			}
			if err != nil {
				return err
			}
		}
		if p.Status == axp.BoardVisible {
			err = threads.Put([]byte(p.ID), nil)
		} else {
			err = threads.Delete([]byte(p.ID))
		}
		if err != nil {
			return err
		}
	}
	return putJSON(t.bucket(bBoardPosts), []byte(p.ID), p)
}

// BoardThreads lists up to limit visible threads, newest first, posted before the thread before
// ("" starts with the newest), only those tagged tag when tag is not empty. more says whether
// older threads follow.
func (t *Tx) BoardThreads(tag, before string, limit int) (threads []axp.BoardPost, more bool, err error) {
	b, prefix := t.bucket(bBoardThreads), []byte(nil)
	if tag != "" {
		b, prefix = t.bucket(bBoardTags), []byte(tag+"\x00")
	}
	c := b.Cursor()
	var k []byte
	if before != "" {
		k, _ = c.Seek(append(append([]byte(nil), prefix...), before...))
		if k == nil {
			k, _ = c.Last()
		} else {
			// Seek lands on the cursor's own key (or the next one): step back past it.
			k, _ = c.Prev()
		}
	} else if prefix == nil {
		k, _ = c.Last()
	} else {
		// The first key after every key of the prefix, then one back.
		if k, _ = c.Seek(append(prefix[:len(prefix)-1:len(prefix)-1], 1)); k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
	}
	threads = []axp.BoardPost{}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Prev() {
		if len(threads) == limit {
			return threads, true, nil
		}
		p, err := t.BoardPost(string(k[len(prefix):]))
		if err != nil {
			return nil, false, err
		}
		if p != nil {
			threads = append(threads, *p)
		}
	}
	return threads, false, nil
}

// BoardReplies lists up to limit replies of a thread in any status, oldest first, posted after the
// reply after ("" starts with the first). more says whether newer replies follow.
func (t *Tx) BoardReplies(threadID, after string, limit int, keep func(*axp.BoardPost) bool) (replies []axp.BoardPost, more bool, err error) {
	prefix := []byte(threadID + "\x00")
	c := t.bucket(bBoardReplies).Cursor()
	k, _ := c.Seek(prefix)
	if after != "" {
		if k, _ = c.Seek(pair(threadID, after)); k != nil && string(k[len(prefix):]) == after {
			k, _ = c.Next()
		}
	}
	replies = []axp.BoardPost{}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		p, err := t.BoardPost(string(k[len(prefix):]))
		if err != nil {
			return nil, false, err
		}
		if p == nil || !keep(p) {
			continue
		}
		if len(replies) == limit {
			return replies, true, nil
		}
		replies = append(replies, *p)
	}
	return replies, false, nil
}

// PendingBoardPosts lists up to limit posts that wait for the operator, oldest first.
func (t *Tx) PendingBoardPosts(limit int) ([]axp.BoardPost, error) {
	out := []axp.BoardPost{}
	c := t.bucket(bBoardPending).Cursor()
	for k, _ := c.First(); k != nil && len(out) < limit; k, _ = c.Next() {
		p, err := t.BoardPost(string(k))
		if err != nil {
			return nil, err
		}
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}

// EachBoardPost calls fn for every post, newest first, until fn answers false.
func (t *Tx) EachBoardPost(fn func(*axp.BoardPost) bool) error {
	return each(t.bucket(bBoardPosts), true, func(_ []byte, p *axp.BoardPost) (bool, error) { return fn(p), nil })
}
