package kernel

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/store"
)

// loadTask reads a task, as not_found when missing.
func LoadTask(tx *store.Tx, id string) (*axp.TaskRecord, error) {
	t, err := tx.Task(id)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, axp.NotFound("task", id)
	}
	return t, nil
}

func TokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// asBuyer checks that the caller acts for the task's buyer: the buyer token (query or Bearer), or
// the member secret of the buyer member who posted it.
func AsBuyer(t *axp.TaskRecord, c axp.Caller) error {
	if c.Kind == axp.MemberCall && t.BuyerMemberID != "" && c.MemberID == t.BuyerMemberID {
		return nil
	}
	if c.Token == "" {
		if c.Kind == axp.MemberCall {
			return axp.Forbidden("you are not the buyer of this task", "use the task's buyer_token as ?token=")
		}
		return axp.Unauthorized("this step needs the task's buyer token", "send ?token=<buyer_token> or Authorization: Bearer <buyer_token>")
	}
	want, _ := hex.DecodeString(t.BuyerTokenHash)
	got := sha256.Sum256([]byte(c.Token))
	if !hmac.Equal(got[:], want) {
		return axp.Unauthorized("the buyer token does not match this task", "use the buyer_token returned when the task was created")
	}
	return nil
}

// asSeller checks that the caller is the chosen seller of the task.
func AsSeller(t *axp.TaskRecord, c axp.Caller) error {
	if c.Kind != axp.MemberCall {
		return axp.Unauthorized("this step needs the chosen seller's member secret", "send Authorization: Bearer <member_secret>")
	}
	if t.SellerID == "" || c.MemberID != t.SellerID {
		return axp.Forbidden("you are not the chosen seller of this task", "only the seller whose offer was chosen may do this")
	}
	return nil
}

// event appends a timeline event to the task in the change's transaction.
func (c *Change) Event(t *axp.TaskRecord, kind string, detail map[string]any) error {
	return c.Tx.AppendEvent(t, axp.Event{At: c.Now, Kind: kind, Actor: c.Actor, Status: t.Status, Detail: detail})
}

// save stores a task moved from status prev, with its timeline event and audit record.
func (c *Change) Save(t *axp.TaskRecord, prev, action string, detail map[string]any) error {
	if err := c.Event(t, action, detail); err != nil {
		return err
	}
	if err := c.Tx.PutTask(t, prev); err != nil {
		return err
	}
	d := map[string]any{"status": t.Status}
	if prev != "" && prev != t.Status {
		d["from"] = prev
	}
	for k, v := range detail {
		d[k] = v
	}
	return c.Audit("task."+action, "task", t.ID, d)
}

func BuyerLabel(t *axp.TaskRecord) string {
	if t.BuyerMemberID != "" {
		return "member:" + t.BuyerMemberID
	}
	return "anonymous"
}

// matches reports whether a seller takes part in the quote round of a task (DESIGN.md section 4).
func Matches(m *axp.Member, t *axp.TaskRecord) (*axp.Skill, bool) {
	if !matchable(m) || m.ID == t.BuyerMemberID || !m.Accepts(t.PaymentMethod) {
		return nil, false
	}
	if t.InviteMode != "" {
		invited := false
		for _, id := range t.Invited {
			if id == m.ID {
				invited = true
				break
			}
		}
		if !invited {
			return nil, false
		}
	}
	for i := range m.Skills {
		if m.Skills[i].TaskType == t.Type {
			return &m.Skills[i], true
		}
	}
	return nil, false
}
