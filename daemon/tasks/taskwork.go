package tasks

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/checks"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// content resolves the delivered bytes of a deliver call.
func (s *Service) content(tx *store.Tx, in *axp.DeliverInput, sellerID string) (body []byte, filename, mime string, err error) {
	switch {
	case in.Content != "" && in.URL != "":
		return nil, "", "", axp.Invalid("url", "give either content or url, not both", "")
	case in.Content != "":
		body, mime = []byte(in.Content), in.MimeType
		if mime == "" {
			mime = "text/plain; charset=utf-8"
		}
	case strings.HasPrefix(in.URL, "data:"):
		body, mime, err = dataURL(in.URL)
		if err != nil {
			return nil, "", "", err
		}
	case in.URL != "":
		body, mime, err = s.exchangeURL(tx, in.URL, sellerID)
		if err != nil {
			return nil, "", "", err
		}
	default:
		return nil, "", "", axp.Invalid("content", "is required (or url)", "send {content, filename, mime_type} inline, or url as a data: URL")
	}
	if len(body) == 0 {
		return nil, "", "", axp.Invalid("content", "is empty", "deliver the result")
	}
	if len(body) > protocol.MaxInlineDeliverable {
		return nil, "", "", axp.Invalid("content", fmt.Sprintf("is %d bytes; at most %d (256 KB) are allowed", len(body), protocol.MaxInlineDeliverable), "")
	}
	// The buyer reads the filename, and saves the file under it ("report\u202etxt.exe").
	if err := screening.CheckName("filename", in.Filename); err != nil {
		return nil, "", "", err
	}
	filename = in.Filename
	if filename == "" {
		filename = "deliverable"
		if strings.HasPrefix(mime, "text/plain") {
			filename += ".txt"
		}
	}
	if in.MimeType != "" {
		mime = in.MimeType
	}
	filename = path.Base(strings.ReplaceAll(filename, "\\", "/"))
	return body, filename, mime, nil
}

// dataURL decodes data:[<mime>][;base64],<data>.
func dataURL(u string) ([]byte, string, error) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !ok {
		return nil, "", axp.Invalid("url", "is not a data: URL (no comma)", "use data:text/plain;base64,<base64>")
	}
	mime := "text/plain; charset=US-ASCII"
	b64 := false
	if meta != "" {
		parts := strings.Split(meta, ";")
		if parts[0] != "" {
			mime = parts[0]
		}
		for _, p := range parts[1:] {
			if p == "base64" {
				b64 = true
			}
		}
	}
	if b64 {
		body, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			if body, err = base64.RawStdEncoding.DecodeString(payload); err != nil {
				return nil, "", axp.Invalid("url", "the data: URL's base64 does not decode", "")
			}
		}
		return body, mime, nil
	}
	s, err := url.PathUnescape(payload)
	if err != nil {
		return nil, "", axp.Invalid("url", "the data: URL's escapes do not decode", "")
	}
	return []byte(s), mime, nil
}

// exchangeURL resolves a deliverable URL on this exchange, of a task delivered by the same seller.
func (s *Service) exchangeURL(tx *store.Tx, raw, sellerID string) ([]byte, string, error) {
	refuse := axp.Invalid("url", "links to other servers are refused: deliverables are hosted by the exchange",
		"deliver inline ({content, filename, mime_type}) or as a data: URL")
	base := s.base.BaseURL() + "/api/tasks/"
	if !strings.HasPrefix(raw, base) || !strings.HasSuffix(raw, "/deliverable") {
		return nil, "", refuse
	}
	id := strings.TrimSuffix(strings.TrimPrefix(raw, base), "/deliverable")
	t, err := tx.Task(id)
	if err != nil {
		return nil, "", err
	}
	if t == nil || t.SellerID != sellerID || t.LastDelivery() == nil {
		return nil, "", refuse
	}
	dl := t.LastDelivery()
	return tx.Blob(dl.SHA256), dl.MimeType, nil
}

func (s *Service) deliver(ctx context.Context, c *pipeline.Call, in *axp.DeliverInput) (*axp.Task, error) {
	if strings.HasPrefix(in.ID, sandboxPrefix) {
		return s.sandboxDeliver(ctx, c, in)
	}
	return s.taskChange(ctx, c, in.ID, kernel.ViewSeller, func(ch *kernel.Change, t *axp.TaskRecord) error {
		body, filename, mime, err := s.content(ch.Tx, in, t.SellerID)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		sha := hex.EncodeToString(sum[:])
		if in.SHA256 != "" && in.SHA256 != sha {
			return axp.Invalid("sha256", "does not match the content (its SHA-256 is "+sha+")", "")
		}
		prev := t.Status
		if err := t.Move(axp.TrigDeliver, "", ch.Now); err != nil {
			return err
		}
		// Text content loses its credentials and contact details like every text between the
		// parties (binary content is left alone); the stored hash is that of what the buyer
		// receives, the seller's own is kept on the delivery.
		var sc *axp.Screening
		var w screening.Withheld
		original := sha
		p := screening.SellerParty(t, t.SellerID)
		if screening.TextMime(mime) && utf8.Valid(body) {
			text := s.screen.WithholdCredentials(ch, p, "content", string(body), &w)
			cleaned, v, err := s.screen.CleanText(ch, p, "content", text, false)
			if err != nil {
				return err
			}
			screening.Merge(&sc, "content", v)
			if cleaned != string(body) {
				body = []byte(cleaned)
				sum = sha256.Sum256(body)
				sha = hex.EncodeToString(sum[:])
			}
		}
		note, vx, err := s.screen.CleanText(ch, p, "note", s.screen.WithholdCredentials(ch, p, "note", in.Note, &w), false)
		if err != nil {
			return err
		}
		screening.Merge(&sc, "note", vx)
		if w.Count > 0 {
			// The seller hears of it in the answer (screening.credentials), both parties and the
			// operator on the timeline; it counts against the seller like contact details, once
			// per delivery (cleanText counted it already when contact details went too).
			screening.Merge(&sc, "content", &axp.Screening{Verdict: "clean", Credentials: w.Kinds})
			if err := ch.Event(t, "credentials_withheld", map[string]any{"kinds": w.Kinds, "count": w.Count, "fields": w.Fields}); err != nil {
				return err
			}
			if len(sc.Removed) == 0 {
				if err := s.screen.CountRemoval(ch, t.SellerID); err != nil {
					return err
				}
			}
		}
		if err := ch.Tx.PutBlob(sha, body); err != nil {
			return err
		}
		dl := axp.Delivery{SHA256: sha, Filename: filename, MimeType: mime, Size: len(body), Note: note, At: ch.Now, Passed: true, Screening: sc}
		if sha != original {
			dl.OriginalSHA256 = original
		}
		if len(t.AcceptanceChecks) > 0 {
			dl.Checks = checks.Run(t.AcceptanceChecks, body)
			dl.Passed = checks.Passed(dl.Checks)
		}
		first := len(t.Deliveries) == 0
		t.Deliveries = append(t.Deliveries, dl)
		release := ch.Now.Add(s.base.Cfg().AutoRelease)
		t.AutoReleaseAt, t.ReleaseDue = &release, false
		if first {
			st, err := ch.Tx.SellerStats(t.SellerID)
			if err != nil {
				return err
			}
			st.Deliveries++
			if t.StartedAt != nil && ch.Now.Sub(*t.StartedAt) <= time.Duration(t.ETAMinutes)*time.Minute {
				st.OnTime++
			}
			if err := ch.Tx.PutSellerStats(st); err != nil {
				return err
			}
		}
		detail := map[string]any{"sha256": sha, "size": len(body), "checks_passed": dl.Passed}
		if sc != nil {
			detail["screening"] = sc
		}
		if err := ch.Save(t, prev, "deliver", detail); err != nil {
			return err
		}
		s.notices.StatusNotices(ch, t)
		return nil
	})
}

func (s *Service) getDeliverable(ctx context.Context, c *pipeline.Call, in *axp.TaskRef) (*axp.Document, error) {
	var doc *axp.Document
	_, err := s.base.MutateCall(ctx, c, func(ch *kernel.Change) (any, error) {
		t, side, err := kernel.LoadOwned(ch.Tx, c, in.ID)
		if err != nil {
			return nil, err
		}
		dl := t.LastDelivery()
		if dl == nil {
			return nil, axp.NotFound("deliverable of task", t.ID).WithHint("nothing has been delivered yet")
		}
		body := ch.Tx.Blob(dl.SHA256)
		if side == axp.SideBuyer && dl.Retrieved == nil {
			at := ch.Now
			dl.Retrieved = &at
			if err := ch.Save(t, t.Status, "retrieve", map[string]any{"sha256": dl.SHA256}); err != nil {
				return nil, err
			}
		}
		disp := "attachment"
		if strings.HasPrefix(dl.MimeType, "text/") && utf8.Valid(body) {
			disp = "inline"
		}
		doc = &axp.Document{ContentType: dl.MimeType, Body: body, Header: map[string]string{
			"X-Content-SHA256":    dl.SHA256,
			"Content-Disposition": fmt.Sprintf("%s; filename=%q", disp, dl.Filename),
			"Cache-Control":       "no-store",
		}, Filename: dl.Filename}
		return nil, nil
	})
	return doc, err
}

func (s *Service) acceptTask(ctx context.Context, c *pipeline.Call, in *axp.AcceptInput) (*axp.Task, error) {
	return s.taskChange(ctx, c, in.ID, kernel.ViewBuyer, func(ch *kernel.Change, t *axp.TaskRecord) error {
		if dl := t.LastDelivery(); dl != nil && in.SHA256 != "" && in.SHA256 != dl.SHA256 {
			return axp.Conflict("sha256 does not match the latest delivery ("+dl.SHA256+")", "retrieve the deliverable again and accept what you checked")
		}
		prev := t.Status
		if err := t.Move(axp.TrigAccept, "", ch.Now); err != nil {
			return err
		}
		if err := money.CloseReleaseDue(ch, t, "the buyer accepted the delivery"); err != nil {
			return err
		}
		if len(t.Deliveries) == 1 && t.LastDelivery().Passed {
			st, err := ch.Tx.SellerStats(t.SellerID)
			if err != nil {
				return err
			}
			st.FirstPass++
			if err := ch.Tx.PutSellerStats(st); err != nil {
				return err
			}
		}
		if err := kernel.Emit(ch, kernel.TaskFinished{Task: t}); err != nil {
			return err
		}
		if err := ch.Save(t, prev, "accept", nil); err != nil {
			return err
		}
		// The parties hear of every status the task passes through: accepted, then for a free
		// job (no money, no payout item) released at once.
		s.notices.StatusNotices(ch, t)
		if t.Free() {
			return s.notices.Finish(ch, t, axp.TrigRelease, "release", nil)
		}
		return nil
	})
}

func (s *Service) disputeTask(ctx context.Context, c *pipeline.Call, in *axp.DisputeInput) (*axp.Task, error) {
	return s.taskChange(ctx, c, in.ID, kernel.ViewBuyer, func(ch *kernel.Change, t *axp.TaskRecord) error {
		prev := t.Status
		if err := t.Move(axp.TrigDispute, in.Reason, ch.Now); err != nil {
			return err
		}
		if err := money.CloseReleaseDue(ch, t, "the buyer disputed the delivery"); err != nil {
			return err
		}
		reason, sc, err := s.screen.CleanText(ch, screening.BuyerParty(t), "dispute_reason", strings.TrimSpace(in.Reason), false)
		if err != nil {
			return err
		}
		t.DisputeReason, t.DisputeScreening, t.Disputed = reason, sc, true
		st, err := ch.Tx.SellerStats(t.SellerID)
		if err != nil {
			return err
		}
		st.Disputed++
		if err := ch.Tx.PutSellerStats(st); err != nil {
			return err
		}
		detail := map[string]any{"reason": t.DisputeReason}
		if sc != nil {
			detail["screening"] = sc
		}
		if dl := t.LastDelivery(); dl != nil && t.RefundIfFails && !dl.Passed && !t.Free() {
			// The seller promised a refund if the checks fail, and they failed: the refund is
			// decided at once, and waits for the operator's approval like every refund.
			a, err := s.money.MoneyApproval(t, axp.ApproveRefund, t.Price, "the offer guaranteed a refund if the acceptance checks fail, and they failed", ch.Now)
			if err != nil {
				return err
			}
			if err := ch.Tx.PutApproval(a); err != nil {
				return err
			}
			detail["refund_decided"], detail["approval_id"] = true, a.ID
		}
		if err := ch.Save(t, prev, "dispute", detail); err != nil {
			return err
		}
		s.notices.StatusNotices(ch, t)
		return nil
	})
}

func (s *Service) requestRedo(ctx context.Context, c *pipeline.Call, in *axp.RedoBody) (*axp.Task, error) {
	return s.taskChange(ctx, c, in.ID, kernel.ViewBuyer, func(ch *kernel.Change, t *axp.TaskRecord) error {
		prev := t.Status
		if err := t.Move(axp.TrigRedo, in.Reason, ch.Now); err != nil {
			return err
		}
		if err := money.CloseReleaseDue(ch, t, "the buyer asked for a redo"); err != nil {
			return err
		}
		t.RedosUsed++
		t.AutoReleaseAt = nil
		reason, sc, err := s.screen.CleanText(ch, screening.BuyerParty(t), "redo_reason", in.Reason, false)
		if err != nil {
			return err
		}
		detail := map[string]any{"reason": reason, "redos_left": t.FreeRedo - t.RedosUsed}
		if sc != nil {
			detail["screening"] = sc
		}
		if err := ch.Save(t, prev, "redo", detail); err != nil {
			return err
		}
		seller, err := kernel.LoadMember(ch.Tx, t.SellerID)
		if err != nil {
			return err
		}
		n := s.notices.DoTaskNotice(t, seller)
		msg := n.Msg.(kernel.DoTask)
		msg.In.Description = strings.TrimSpace(t.Description + "\n\nRedo requested: " + reason)
		n.Msg = msg
		ch.Notify(n)
		s.notices.StatusNotices(ch, t)
		return nil
	})
}

func (s *Service) requestPayment(ctx context.Context, c *pipeline.Call, in *axp.IDPath) (*axp.PaymentRequested, error) {
	// The answer is the change's own, so that a retry with the same key replays it.
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.PaymentRequested, error) {
		t, _, err := kernel.LoadOwned(ch.Tx, c, in.ID)
		if err != nil {
			return nil, err
		}
		if _, err := axp.Next(t.Status, axp.TrigRequestPay, t.Facts()); err != nil {
			return nil, err
		}
		if t.Free() {
			return nil, axp.Conflict("free jobs carry no payment", "")
		}
		existing, err := ch.Tx.TaskApprovals(t.ID)
		if err != nil {
			return nil, err
		}
		for i := range existing {
			a := &existing[i]
			if a.Kind == axp.ApprovePayout && a.Status != axp.ApprovalRejected {
				return &axp.PaymentRequested{TaskID: t.ID, Status: t.Status, Payout: a, Message: "payment already requested"}, nil
			}
		}
		a, err := s.money.MoneyApproval(t, axp.ApprovePayout, 0, "the buyer accepted the delivery; the seller requests payment", ch.Now)
		if err != nil {
			return nil, err
		}
		seller, err := kernel.LoadMember(ch.Tx, t.SellerID)
		if err != nil {
			return nil, err
		}
		a.PayoutAddress = seller.PayoutAddress
		if seller.PayoutAddress == "" {
			if err := a.Hold(axp.HoldPayoutAddress); err != nil {
				return nil, err
			}
			a.Note = "held until the seller adds a payout address (axp member payout-address ADDR, or update_profile with payout_address)"
		}
		if err := ch.Tx.PutApproval(a); err != nil {
			return nil, err
		}
		if err := ch.Save(t, t.Status, "request_payment", map[string]any{"approval_id": a.ID, "held": a.Status == axp.ApprovalHeld}); err != nil {
			return nil, err
		}
		msg := "Payment requested: the operator approves every payout before it is sent."
		if a.Status == axp.ApprovalHeld {
			msg = "Payment requested but held: set a payout address with axp member payout-address ADDR (or update_profile with payout_address)."
		}
		return &axp.PaymentRequested{TaskID: t.ID, Status: t.Status, Payout: a, Message: msg}, nil
	})
}
