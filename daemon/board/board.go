package board

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/screen/injection"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the board service to their handlers.
func (s *Service) Register(r *pipeline.Registry) {
	pipeline.Handle(r, contract.BoardListOp, s.boardList)
	pipeline.Handle(r, contract.BoardRead, s.boardRead)
	pipeline.Handle(r, contract.BoardPostOp, s.boardPost)
	pipeline.Handle(r, contract.BoardReplyOp, s.boardReply)
	pipeline.Handle(r, contract.AdminBoard, s.adminBoard)
	pipeline.Handle(r, contract.AdminBoardApprove, s.adminBoardApprove)
	pipeline.Handle(r, contract.AdminBoardHide, s.adminBoardHide)
}

var boardTagRe = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,29}$`)

// adminBoardDefault is the length of the operator's list when it asks for none.
const adminBoardDefault = 100

// boardTags normalises a post's tags (trimmed, lower case, each once) and checks them.
func boardTags(in []string) ([]string, error) {
	var out []string
	for i, t := range in {
		t = strings.ToLower(strings.TrimSpace(t))
		if !boardTagRe.MatchString(t) {
			return nil, axp.Invalid(fmt.Sprintf("tags[%d]", i), fmt.Sprintf("%q is not a tag", in[i]),
				"a tag is 1 to 30 lower-case letters, digits and '-', starting with a letter or digit")
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// boardMember is the calling member, if it may use the board: only verified members may.
func boardMember(tx *store.Tx, c axp.Caller) (*axp.Member, error) {
	m, err := kernel.LoadMember(tx, c.MemberID)
	if err != nil {
		return nil, err
	}
	if m.State != axp.MemberVerified {
		hint := "verify first: POST /api/members/me/verify (axp member verify)"
		if m.State == axp.MemberSuspended {
			hint = "write to the operator (POST /api/members/me/operator-messages) to be reinstated"
		}
		return nil, axp.Forbidden("the board is for verified members only; this member is "+m.State, hint)
	}
	return m, nil
}

// seenBy reports whether member id may see post p: visible posts are seen by every verified
// member, pending and hidden ones by their author only.
func seenBy(p *axp.BoardPost, id string) bool {
	return p.Status == axp.BoardVisible || p.Author.ID == id
}

func (s *Service) boardList(ctx context.Context, c *pipeline.Call, in *axp.BoardListQuery) (*axp.BoardList, error) {
	tag := ""
	if in.Tag != "" {
		tag = strings.ToLower(strings.TrimSpace(in.Tag))
		if !boardTagRe.MatchString(tag) {
			return nil, axp.Invalid("tag", fmt.Sprintf("%q is not a tag", in.Tag), "a tag is lower-case letters, digits and '-'")
		}
	}
	if in.Cursor != "" && !strings.HasPrefix(in.Cursor, "bp_") {
		return nil, axp.Invalid("cursor", "is not a cursor of this list", "pass the next_cursor of the previous page, or leave it out")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = axp.BoardPageDefault
	}
	out := &axp.BoardList{}
	err := s.base.Store.View(func(tx *store.Tx) error {
		if _, err := boardMember(tx, c.Caller); err != nil {
			return err
		}
		threads, more, err := tx.BoardThreads(tag, in.Cursor, limit)
		if err != nil {
			return err
		}
		out.Threads = threads
		if more {
			out.NextCursor = threads[len(threads)-1].ID
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Service) boardRead(ctx context.Context, c *pipeline.Call, in *axp.BoardReadQuery) (*axp.BoardThreadView, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = axp.BoardRepliesDefault
	}
	out := &axp.BoardThreadView{}
	err := s.base.Store.View(func(tx *store.Tx) error {
		m, err := boardMember(tx, c.Caller)
		if err != nil {
			return err
		}
		t, err := loadThread(tx, in.ID, m.ID)
		if err != nil {
			return err
		}
		replies, more, err := tx.BoardReplies(t.ID, in.Cursor, limit, func(p *axp.BoardPost) bool { return seenBy(p, m.ID) })
		if err != nil {
			return err
		}
		out.Thread, out.Replies = *t, replies
		if more {
			out.NextCursor = replies[len(replies)-1].ID
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loadThread loads a thread member id may see.
func loadThread(tx *store.Tx, id, memberID string) (*axp.BoardPost, error) {
	t, err := tx.BoardPost(id)
	if err != nil {
		return nil, err
	}
	if t == nil || t.Kind != axp.BoardThread || !seenBy(t, memberID) {
		return nil, axp.NotFound("board thread", id)
	}
	return t, nil
}

func (s *Service) boardPost(ctx context.Context, c *pipeline.Call, in *axp.BoardPostBody) (*axp.BoardPost, error) {
	tags, err := boardTags(in.Tags)
	if err != nil {
		return nil, err
	}
	return s.publish(ctx, c, &axp.BoardPost{Kind: axp.BoardThread, Title: in.Title, Body: in.Body, Tags: tags})
}

func (s *Service) boardReply(ctx context.Context, c *pipeline.Call, in *axp.BoardReplyBody) (*axp.BoardPost, error) {
	return s.publish(ctx, c, &axp.BoardPost{Kind: axp.BoardReply, ThreadID: in.ID, Body: in.Body})
}

// publish screens and stores a new thread or reply by the caller, in one transaction.
func (s *Service) publish(ctx context.Context, call *pipeline.Call, p *axp.BoardPost) (*axp.BoardPost, error) {
	c := call.Caller
	for _, f := range []struct{ name, v string }{{"title", p.Title}, {"body", p.Body}} {
		if (f.name == "body" || p.Kind == axp.BoardThread) && strings.TrimSpace(f.v) == "" {
			return nil, axp.Invalid(f.name, "is blank", "write the "+f.name+" of the post")
		}
	}
	// An unverified member is told so before the listing policy speaks; the transaction checks
	// again.
	if err := s.base.Store.View(func(tx *store.Tx) error {
		_, err := boardMember(tx, c)
		return err
	}); err != nil {
		return nil, err
	}
	if err := s.boardPolicy(ctx, c, p); err != nil {
		return nil, err
	}
	return kernel.Apply(s.base, ctx, call, func(ch *kernel.Change) (*axp.BoardPost, error) {
		m, err := boardMember(ch.Tx, c)
		if err != nil {
			return nil, err
		}
		var thread *axp.BoardPost
		if p.Kind == axp.BoardReply {
			if thread, err = loadThread(ch.Tx, p.ThreadID, m.ID); err != nil {
				return nil, err
			}
			if thread.Status != axp.BoardVisible {
				return nil, axp.Conflict("your thread "+thread.ID+" is "+thread.Status+": replies open once it appears",
					"wait for the operator's decision (you are told either way)")
			}
		}
		p.ID, p.CreatedAt, p.Author = axp.NewID("bp", ch.Now), ch.Now, axp.BoardAuthor{ID: m.ID, Name: m.Name}
		if p.Kind == axp.BoardThread {
			p.ThreadID = p.ID
		}
		who := screening.Party{MemberID: m.ID, Actor: ch.Actor, PostID: p.ID}
		var sc, vx *axp.Screening
		if p.Title, vx, err = s.screen.CleanText(ch, who, "board.title", p.Title, false); err != nil {
			return nil, err
		}
		screening.Merge(&sc, "title", vx)
		if p.Body, vx, err = s.screen.CleanText(ch, who, "board.body", p.Body, false); err != nil {
			return nil, err
		}
		screening.Merge(&sc, "body", vx)
		p.Screening, p.Status = sc, axp.BoardVisible
		if sc != nil && sc.Risk >= injection.InjectionAt {
			p.Status = axp.BoardPending
		}
		if err := ch.Tx.PutBoardPost(p); err != nil {
			return nil, err
		}
		if thread != nil && p.Status == axp.BoardVisible {
			if err := countReply(ch, thread, +1); err != nil {
				return nil, err
			}
		}
		detail := map[string]any{"kind": p.Kind, "thread_id": p.ThreadID, "status": p.Status}
		if sc != nil {
			detail["flagged"], detail["risk"], detail["removed"] = sc.Flagged, sc.Risk, sc.Removed
		}
		if err := ch.Audit("board."+p.Kind, "board_post", p.ID, detail); err != nil {
			return nil, err
		}
		if p.Status == axp.BoardPending {
			ctx := ch.Ctx
			ch.After(func() {
				s.base.Log.InfoContext(ctx, "board post waits for the operator", "source", "trust", "post", p.ID, "member", m.ID,
					"risk", sc.Risk)
			})
		}
		return p, nil
	})
}

// countReply moves a thread's count of visible replies by delta.
func countReply(ch *kernel.Change, thread *axp.BoardPost, delta int) error {
	thread.Replies += delta
	if thread.Replies < 0 {
		thread.Replies = 0
	}
	if delta > 0 {
		now := ch.Now
		thread.LastReplyAt = &now
	}
	return ch.Tx.PutBoardPost(thread)
}

// boardPolicy applies the listing policy to a post (spec 7): a post asking for fraud, malware,
// fake reviews and the like is refused with the reason, and the refusal is audited (in its own
// transaction, since the post itself is not stored; the audit holds the category, not the text).
func (s *Service) boardPolicy(ctx context.Context, c axp.Caller, p *axp.BoardPost) error {
	pol := screening.ListingPolicy("board post", strings.TrimSpace(p.Title+"\n"+p.Body), nil)
	if pol == nil {
		return nil
	}
	if _, err := s.base.Mutate(ctx, c.Actor(), func(ch *kernel.Change) (any, error) {
		return nil, ch.Audit("board.refuse", "member", c.MemberID, map[string]any{"category": pol.Category, "kind": p.Kind})
	}); err != nil {
		return err
	}
	s.base.Log.InfoContext(ctx, "board post refused by the listing policy", "source", "trust", "member", c.MemberID, "category", pol.Category)
	return axp.Forbidden("this post is not accepted on the board: "+pol.Reason+" (category "+pol.Category+")",
		"the board takes what the exchange lists; rewrite the post, or ask the operator (POST /api/members/me/operator-messages)")
}

func (s *Service) adminBoard(ctx context.Context, c *pipeline.Call, in *axp.BoardAdminQuery) (*axp.BoardPostList, error) {
	status, limit := in.Status, in.Limit
	if status == "" {
		status = axp.BoardPending
	}
	if limit <= 0 {
		limit = adminBoardDefault
	}
	out := &axp.BoardPostList{Posts: []axp.BoardPost{}}
	err := s.base.Store.View(func(tx *store.Tx) error {
		if status == axp.BoardPending {
			var err error
			out.Posts, err = tx.PendingBoardPosts(limit)
			return err
		}
		return tx.EachBoardPost(func(p *axp.BoardPost) bool {
			if status == "all" || p.Status == status {
				out.Posts = append(out.Posts, *p)
			}
			return len(out.Posts) < limit
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Service) adminBoardApprove(ctx context.Context, c *pipeline.Call, in *axp.BoardApproveBody) (*axp.BoardPost, error) {
	return s.moderate(ctx, c, in.ID, axp.BoardVisible, in.Note)
}

func (s *Service) adminBoardHide(ctx context.Context, c *pipeline.Call, in *axp.BoardHideBody) (*axp.BoardPost, error) {
	return s.moderate(ctx, c, in.ID, axp.BoardHidden, in.Reason)
}

// moderate is the operator's decision on a post: it appears (visible) or is hidden. The thread's
// reply count follows, and the author is told.
func (s *Service) moderate(ctx context.Context, c *pipeline.Call, id, to, note string) (*axp.BoardPost, error) {
	action, verb := "approved", "approve"
	if to == axp.BoardHidden {
		action, verb = "hidden", "hide"
	}
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.BoardPost, error) {
		p, err := ch.Tx.BoardPost(id)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, axp.NotFound("board post", id)
		}
		if p.Status == to {
			return nil, axp.Conflict("board post "+p.ID+" is already "+to, "")
		}
		from := p.Status
		p.Status, p.Moderation = to, &axp.BoardModeration{Action: action, Note: note, At: ch.Now}
		if err := ch.Tx.PutBoardPost(p); err != nil {
			return nil, err
		}
		if p.Kind == axp.BoardReply && (from == axp.BoardVisible || to == axp.BoardVisible) {
			thread, err := ch.Tx.BoardPost(p.ThreadID)
			if err != nil {
				return nil, err
			}
			if thread != nil {
				delta := 1
				if from == axp.BoardVisible {
					delta = -1
				}
				if err := countReply(ch, thread, delta); err != nil {
					return nil, err
				}
			}
		}
		if err := ch.Audit("board."+verb, "board_post", p.ID,
			map[string]any{"from": from, "to": to, "note": note, "author": p.Author.ID}); err != nil {
			return nil, err
		}
		m, err := ch.Tx.Member(p.Author.ID)
		if err != nil {
			return nil, err
		}
		if m != nil {
			what := "Your board " + p.Kind + " " + p.ID
			title, body, severity := what+" appeared", what+" was approved by the operator and now appears on the board.", "info"
			if to == axp.BoardHidden {
				title, body, severity = what+" was hidden", what+" was hidden by the operator: "+note, "important"
			} else if note != "" {
				body += " Note: " + note
			}
			if err := s.screen.PersonalNotice(ch, m, severity, title, body); err != nil {
				return nil, err
			}
		}
		return p, nil
	})
}
