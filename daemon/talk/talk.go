package talk

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the talk service to their handlers.
func (s *Service) Register(r *pipeline.Registry) {
	pipeline.Handle(r, contract.Talk, s.talk)
}

// maxTalkTurns bounds a conversation's length; a longer one starts anew.
const maxTalkTurns = 200

// turn is one message being answered.
type turn struct {
	d      *Service
	ctx    context.Context
	caller axp.Caller
	door   pipeline.Door
	conv   *axp.Conversation
	// raw is the buyer's message as sent (links survive only into data-source params); msg is
	// the message through the party-text filters, which the assistant reads and stores.
	raw, msg string
	// text is the reply; acks are short acknowledgements put before it.
	text      string
	acks      []string
	reply     axp.TalkReply
	assistant string
	// buyerToken is the token of a task listed in this turn, handed to an anonymous buyer.
	buyerToken string
	// keepsTokens: the caller saves the tokens itself (TalkBody.KeepsTokens).
	keepsTokens bool
	// acted: the model changed the market in this turn (listed, chose, paid, cancelled); if it
	// then fails, the built-in assistant only reports where things stand, and does not read the
	// message again as an instruction.
	acted bool
}

func (s *Service) talk(ctx context.Context, c *pipeline.Call, in *axp.TalkBody) (*axp.TalkReply, error) {
	msg := strings.TrimSpace(in.Message)
	if msg == "" {
		return nil, axp.Invalid("message", "must not be blank", "write what you want done, or answer the assistant's question")
	}
	now := s.base.Now()
	var conv *axp.Conversation
	convToken := ""
	if in.ConversationID == "" {
		conv = &axp.Conversation{ID: axp.NewID("cnv", now), Stage: axp.TalkShaping, CreatedAt: now, Messages: []axp.TalkMessage{}}
		if c.Caller.Kind == axp.MemberCall {
			conv.MemberID = c.Caller.MemberID
		} else {
			convToken = "ct_" + axp.RandomHex(24)
			conv.TokenHash = kernel.TokenHash(convToken)
		}
	} else {
		if err := s.base.Store.View(func(tx *store.Tx) error {
			var err error
			conv, err = s.talkAuth(tx, in.ConversationID, c.Caller)
			return err
		}); err != nil {
			return nil, err
		}
	}
	if _, busy := s.talking.LoadOrStore(conv.ID, struct{}{}); busy {
		return nil, axp.Conflict("the previous message of this conversation is still being answered", "wait for its answer, then send the next message")
	}
	defer s.talking.Delete(conv.ID)
	if conv.Turns >= maxTalkTurns {
		return nil, axp.Conflict("this conversation reached its "+strconv.Itoa(maxTalkTurns)+" messages", "start a new conversation (leave conversation_id out)")
	}
	turns := conv.Turns
	cleaned, _ := screening.RedactText(msg)
	t := &turn{d: s, ctx: ctx, caller: c.Caller, door: c.Door, conv: conv, raw: msg, msg: strings.TrimSpace(cleaned), keepsTokens: in.KeepsTokens}
	if err := t.answer(); err != nil {
		return nil, err
	}
	base := *conv
	base.Messages = slices.Clone(conv.Messages)
	out, err := s.base.MutateCall(ctx, c, func(ch *kernel.Change) (any, error) {
		// Each run of the transaction (PostgreSQL may run it again) starts from the loaded conversation.
		*conv = base
		conv.Messages = slices.Clone(base.Messages)
		if in.ConversationID != "" {
			cur, err := ch.Tx.Conversation(conv.ID)
			if err != nil {
				return nil, err
			}
			if cur == nil || cur.Turns != turns {
				return nil, axp.Conflict("another message of this conversation was answered meanwhile", "read the answer you got, then send your message again")
			}
		} else if err := ch.Audit("talk.start", "conversation", conv.ID, map[string]any{"member": conv.MemberID}); err != nil {
			return nil, err
		}
		p := talkParty(conv)
		clean, sc, err := s.screen.CleanText(ch, p, "talk.message", msg, false)
		if err != nil {
			return nil, err
		}
		text := t.fullText()
		if t.assistant == axp.AssistantModel {
			// The model's words pass the same filters as a party's before the buyer reads them.
			p.Uncounted = true
			if text, _, err = s.screen.CleanText(ch, p, "talk.reply", text, false); err != nil {
				return nil, err
			}
		}
		conv.Turns++
		conv.UpdatedAt = ch.Now
		conv.Messages = append(conv.Messages,
			axp.TalkMessage{Role: "buyer", Text: clean, Screening: sc, At: ch.Now},
			axp.TalkMessage{Role: "assistant", Text: text, Assistant: t.assistant, At: ch.Now})
		if err := ch.Tx.PutConversation(conv); err != nil {
			return nil, err
		}
		r := t.reply
		r.Reply, r.Screening = text, sc
		r.Token = convToken
		if t.buyerToken != "" {
			r.Token = t.buyerToken
		}
		return &r, nil
	})
	if err != nil {
		return nil, err
	}
	r := out.(*axp.TalkReply)
	s.base.Log.InfoContext(ctx, "talk turn", "source", "talk", "conversation", conv.ID, "stage", conv.Stage, "task", conv.TaskID,
		"assistant", r.Assistant, "turn", conv.Turns)
	return r, nil
}

// talkAuth loads a conversation for the caller, who must hold what continues it: the buyer
// member's secret, the listed task's buyer token, or (before a task) the conversation token.
// Everyone else, and an unknown conversation, gets 403 alike.
func (s *Service) talkAuth(tx *store.Tx, id string, c axp.Caller) (*axp.Conversation, error) {
	refuse := func(why, hint string) error {
		e := axp.Forbidden(why, hint)
		e.Field = "conversation_id"
		return e
	}
	conv, err := tx.Conversation(id)
	if err != nil {
		return nil, err
	}
	if conv == nil {
		return nil, refuse("no conversation "+strconv.Quote(id)+" continues with this token",
			"send the conversation_id and token of an earlier answer as Bearer, or leave conversation_id out to start anew")
	}
	switch {
	case conv.MemberID != "":
		if c.Kind != axp.MemberCall || c.MemberID != conv.MemberID {
			return nil, refuse("this conversation belongs to a buyer member", "continue it with that member's secret as Bearer")
		}
	case conv.TaskID != "":
		t, err := kernel.LoadTask(tx, conv.TaskID)
		if err != nil {
			return nil, err
		}
		if c.Token == "" || !tokenMatches(t.BuyerTokenHash, c.Token) {
			return nil, refuse("this conversation continues with the buyer token of task "+conv.TaskID,
				"send the buyer_token the assistant gave when it listed the job, as Bearer")
		}
	default:
		if c.Token == "" || !tokenMatches(conv.TokenHash, c.Token) {
			return nil, refuse("this conversation continues with its conversation token",
				"send the token of the conversation's first answer as Bearer")
		}
	}
	return conv, nil
}

// tokenMatches compares a presented token with a stored SHA-256 in constant time.
func tokenMatches(hash, token string) bool {
	want, err := hex.DecodeString(hash)
	got := sha256.Sum256([]byte(token))
	return err == nil && len(want) == len(got) && hmac.Equal(got[:], want)
}

// talkParty is the buyer of a conversation, as the author of its messages.
func talkParty(conv *axp.Conversation) screening.Party {
	if conv.MemberID != "" {
		return screening.Party{MemberID: conv.MemberID, Actor: "member:" + conv.MemberID, TaskID: conv.TaskID}
	}
	return screening.Party{Actor: "buyer", TaskID: conv.TaskID}
}

// answer answers the turn: the model when one is configured, the built-in assistant otherwise or
// when the model fails.
func (t *turn) answer() error {
	if t.d.trust.AiConfigured() {
		err := t.model()
		if err == nil {
			t.assistant = axp.AssistantModel
			t.finish()
			return nil
		}
		t.d.base.Log.WarnContext(t.ctx, "the talk model failed; the built-in assistant answers this turn", "source", "talk",
			"conversation", t.conv.ID, "err", err)
		t.text, t.acks, t.reply = "", nil, axp.TalkReply{}
	}
	if err := t.builtIn(); err != nil {
		return err
	}
	t.assistant = axp.AssistantBuiltIn
	t.finish()
	return nil
}

// finish fills what every reply carries from the conversation's state.
func (t *turn) finish() {
	conv := t.conv
	r := &t.reply
	r.ConversationID, r.Stage, r.Asking, r.Assistant = conv.ID, conv.Stage, conv.Asking, t.assistant
	conv.Draft.Missing = t.missing()
	r.Draft = conv.Draft
	r.TaskID = conv.TaskID
	switch {
	case conv.MemberID != "":
		r.ContinueWith = axp.ContinueMemberSecret
	case conv.TaskID != "":
		r.ContinueWith = axp.ContinueBuyerToken
	default:
		r.ContinueWith = axp.ContinueConversationToken
	}
}

func (t *turn) fullText() string {
	if len(t.acks) == 0 {
		return t.text
	}
	return strings.Join(t.acks, " ") + " " + t.text
}

// buyer is the caller the market operations run as: the buyer member, the anonymous buyer (with
// no token before its task exists), or the holder of the task's buyer token.
func (t *turn) buyer() axp.Caller {
	c := t.caller
	switch {
	case c.Kind == axp.MemberCall:
		return c
	case t.buyerToken != "":
		// A task listed in this turn: the token the buyer is about to receive acts for it.
		return axp.Caller{Kind: axp.BuyerToken, Token: t.buyerToken, IP: c.IP}
	case t.conv.TaskID != "":
		return c
	}
	return axp.Caller{Kind: axp.Anonymous, IP: c.IP}
}

// call runs an operation of the catalog for the buyer through the pipeline, as any door would,
// and decodes its answer into out. step (for changes) makes the call idempotent within the
// conversation: a turn answered again after a crash replays it instead of repeating it.
func (t *turn) call(name, step string, args map[string]any, out any) error {
	op := contract.Lookup(name)
	req := pipeline.Request{Op: op, Caller: t.buyer(), Args: args, Door: t.door, Route: "talk " + name}
	if step != "" && op.Mutating() {
		req.IdempotencyKey = "talk-" + t.conv.ID + "-" + strconv.Itoa(t.conv.Turns) + "-" + step
	}
	ans, err := t.d.ops.Run(t.ctx, req)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	b, err := json.Marshal(ans.Out)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// args turns a typed input into the argument map a door hands to the pipeline.
func args(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	dec.Decode(&m)
	return m
}
