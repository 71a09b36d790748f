package board_test

import (
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/board"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/store"
)

func newBoard(t *testing.T) *kerneltest.Fixture {
	f := kerneltest.New(t)
	board.New(f.K.Base(), screening.New(f.K.Base(), f.K)).Register(f.Reg)
	return f
}

func TestPostThreadsThenListNewestFirstByTag(t *testing.T) {
	f := newBoard(t)
	ann, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Ann"})
	first, err := kerneltest.Call(t, f.Reg, contract.BoardPostOp, ann, &axp.BoardPostBody{Title: "Pairing on Go parsers", Body: "Anyone writing a JSON schema validator?", Tags: []string{"Go"}})
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != axp.BoardVisible || first.Author.ID != ann.MemberID || first.Kind != axp.BoardThread || len(first.Tags) != 1 || first.Tags[0] != "go" {
		t.Fatalf("posted %+v", first)
	}
	f.Clock.Add(time.Minute)
	second, err := kerneltest.Call(t, f.Reg, contract.BoardPostOp, ann, &axp.BoardPostBody{Title: "Image jobs", Body: "Who renders diagrams?", Tags: []string{"images"}})
	if err != nil {
		t.Fatal(err)
	}
	var stored *axp.BoardPost
	f.View(t, func(tx *store.Tx) (err error) { stored, err = tx.BoardPost(second.ID); return err })
	if stored == nil || !stored.CreatedAt.Equal(kerneltest.Start.Add(time.Minute)) {
		t.Fatalf("stored %+v", stored)
	}

	all, err := kerneltest.Call(t, f.Reg, contract.BoardListOp, ann, &axp.BoardListQuery{})
	if err != nil || len(all.Threads) != 2 || all.Threads[0].ID != second.ID || all.Threads[1].ID != first.ID {
		t.Fatalf("list %+v, %v", all, err)
	}
	gos, err := kerneltest.Call(t, f.Reg, contract.BoardListOp, ann, &axp.BoardListQuery{Tag: "go"})
	if err != nil || len(gos.Threads) != 1 || gos.Threads[0].ID != first.ID {
		t.Fatalf("tag go: %+v, %v", gos, err)
	}
	paged, err := kerneltest.Call(t, f.Reg, contract.BoardListOp, ann, &axp.BoardListQuery{Limit: 1})
	if err != nil || len(paged.Threads) != 1 || paged.NextCursor == "" {
		t.Fatalf("first page %+v, %v", paged, err)
	}
}

func TestReplyThenReadTheThread(t *testing.T) {
	f := newBoard(t)
	ann, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Ann"})
	bob, _ := f.AddMember(t, axp.Registration{Roles: []string{"buyer"}, Name: "Bob"})
	thread, err := kerneltest.Call(t, f.Reg, contract.BoardPostOp, ann, &axp.BoardPostBody{Title: "Pairing", Body: "Who is in?"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kerneltest.Call(t, f.Reg, contract.BoardReplyOp, bob, &axp.BoardReplyBody{ID: thread.ID, Body: "Me, write to me on the board"}); err != nil {
		t.Fatal(err)
	}
	view, err := kerneltest.Call(t, f.Reg, contract.BoardRead, ann, &axp.BoardReadQuery{ID: thread.ID})
	if err != nil || view.Thread.ID != thread.ID || len(view.Replies) != 1 || view.Replies[0].Author.ID != bob.MemberID {
		t.Fatalf("thread %+v, %v", view, err)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.BoardReplyOp, bob, &axp.BoardReplyBody{ID: "bp_missing", Body: "hello"})
	kerneltest.Err(t, err, axp.CodeNotFound)
}

func TestBoardRefusesUnverifiedMembersAndBadTags(t *testing.T) {
	f := newBoard(t)
	ann, _ := f.AddMember(t, axp.Registration{Roles: []string{"seller"}, Name: "Ann"})
	_, err := kerneltest.Call(t, f.Reg, contract.BoardPostOp, ann, &axp.BoardPostBody{Title: "t", Body: "b", Tags: []string{"not a tag!"}})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "tags[0]" {
		t.Fatalf("refusal names %q", e.Field)
	}
	f.Update(t, func(tx *store.Tx) error {
		m, err := tx.Member(ann.MemberID)
		if err != nil {
			return err
		}
		m.State = axp.MemberRegistered
		return tx.PutMember(m)
	})
	_, err = kerneltest.Call(t, f.Reg, contract.BoardPostOp, ann, &axp.BoardPostBody{Title: "t", Body: "b"})
	kerneltest.Err(t, err, axp.CodeForbidden)
}
