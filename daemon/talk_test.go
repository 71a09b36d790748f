package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon"
	"github.com/axp-exchange/axp/store"
)

// Tests of the talk assistant (POST /api/talk, MCP talk): scripted conversations from the first
// message to an assigned offer for every catalog type and a custom type, the tokens that continue
// a conversation, the model path against a loopback stand-in that speaks the OpenAI-compatible
// chat-completions API with tool calls, and the fall back to the built-in assistant.

// talker is one side of a conversation: a buyer that keeps the conversation id and the latest
// token the assistant gave.
type talker struct {
	t     *testing.T
	c     *client.Client // the buyer's client: anonymous, or a member's
	id    string
	token string
	last  axp.TalkReply
}

func newTalker(t *testing.T, c *client.Client) *talker { return &talker{t: t, c: c} }

// say sends a message and answers the assistant's reply; it fails the test on an error.
func (k *talker) say(msg string) axp.TalkReply {
	k.t.Helper()
	out, err := k.try(msg)
	if err != nil {
		k.t.Fatalf("talk %q: %v", msg, err)
	}
	return out
}

func (k *talker) try(msg string) (axp.TalkReply, error) {
	in := map[string]any{"message": msg}
	if k.id != "" {
		in["conversation_id"] = k.id
	}
	c := k.c
	if k.token != "" {
		c = k.c.With(k.token)
	}
	var out axp.TalkReply
	if err := c.Call(context.Background(), "talk", in, &out); err != nil {
		return out, err
	}
	if out.Token != "" {
		k.token = out.Token
	}
	k.id, k.last = out.ConversationID, out
	return out, nil
}

// expect checks a reply's stage and what it asks for.
func expect(t *testing.T, r axp.TalkReply, stage, asking string) {
	t.Helper()
	if r.Stage != stage || r.Asking != asking {
		t.Fatalf("stage %q asking %q, want %q asking %q; reply: %s", r.Stage, r.Asking, stage, asking, r.Reply)
	}
	if r.Reply == "" || r.Assistant == "" || r.ContinueWith == "" {
		t.Fatalf("incomplete reply %+v", r)
	}
}

// buyerClient is the client that acts as the conversation's buyer outside the conversation.
func (k *talker) buyerClient() *client.Client {
	if k.token != "" {
		return k.c.With(k.token)
	}
	return k.c
}

// conversation reads a stored conversation.
func (e *env) conversation(id string) *axp.Conversation {
	e.t.Helper()
	var c *axp.Conversation
	if err := e.d.DB().View(func(tx *store.Tx) error {
		var err error
		c, err = tx.Conversation(id)
		return err
	}); err != nil || c == nil {
		e.t.Fatalf("conversation %s: %v", id, err)
	}
	return c
}

// TestTalkCatalogTypes runs one scripted conversation per catalog type, each from the first
// message to an assigned offer, against real sellers (instant and push) on loopback.
func TestTalkCatalogTypes(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	named := func(name string) map[string]any { return map[string]any{"name": name} }
	e.instantSeller("text-file", "1.00", 5, nil, named("Quill"))
	push := e.newPushSeller("text-file", nil, nil, map[string]any{"name": "Scribe"})
	e.instantSeller("video", "5.00", 60, nil, named("Reel One"))
	cheapVideo := e.instantSeller("video", "3.50", 45, nil, named("Reel Two"))
	freeImages := e.instantSeller("image", "1.00", 10, nil, map[string]any{"name": "Painter", "payment_methods": []string{"crypto", "free"}})
	e.instantSeller("image", "0.80", 10, nil, named("Paid Painter"))
	e.instantSeller("transcription", "1.00", 60, nil, named("Slow Ears"))
	fastEars := e.instantSeller("transcription", "2.00", 10, nil, named("Fast Ears"))
	e.instantSeller("translation", "2.00", 30, nil, named("Babel"))
	e.instantSeller("translation", "2.50", 40, nil, named("Rosetta"))

	t.Run("text-file", func(t *testing.T) {
		k := newTalker(t, e.anon)
		r := k.say("I need a haiku about autumn leaves written to a text file")
		expect(t, r, axp.TalkShaping, "budget")
		if r.Draft.Type != "text-file" || !strings.Contains(fmt.Sprint(r.Draft.Params["prompt"]), "haiku") ||
			r.ContinueWith != axp.ContinueConversationToken || !strings.HasPrefix(r.Token, "ct_") {
			t.Fatalf("first answer %+v", r)
		}
		expect(t, k.say("$5"), axp.TalkShaping, "deadline")
		r = k.say("within 2 hours")
		expect(t, r, axp.TalkConfirm, "confirm")
		if r.Quote == nil || r.Quote.Price.Amount != usd(t, "0.20") || *r.Draft.DeadlineMinutes != 120 || *r.Draft.BudgetUSD != usd(t, "5") {
			t.Fatalf("confirmation %+v", r)
		}
		r = k.say("yes")
		expect(t, r, axp.TalkListed, "offer")
		if !strings.HasPrefix(r.Token, "bt_") || r.ContinueWith != axp.ContinueBuyerToken || len(r.Offers) != 2 || r.RecommendedOffer == "" {
			t.Fatalf("listing %+v", r)
		}
		if r.Offers[1].Seller.ID != push.MemberID || !strings.Contains(r.Reply, "I recommend #1") {
			t.Fatalf("ranking %+v: %s", r.Offers, r.Reply)
		}
		want := r.Offers[1].OfferID
		r = k.say("the second one")
		expect(t, r, axp.TalkAssigned, "")
		if r.TaskStatus != axp.TaskAwaitingPayment || r.Payment == nil || r.Payment.DepositAddress != depositAddress {
			t.Fatalf("after the choice %+v", r)
		}
		if got := getTask(t, k.buyerClient(), r.TaskID); got.ChosenOfferID != want || got.Status != axp.TaskAwaitingPayment {
			t.Fatalf("task %s chose %s, want %s", got.Status, got.ChosenOfferID, want)
		}
		// The job went through the quote round: the push seller was asked.
		if len(push.received("quote", r.TaskID)) != 1 {
			t.Fatalf("the push seller was not asked to quote")
		}
		// Status at any point.
		r = k.say("what's the status?")
		if r.Stage != axp.TalkAssigned || !strings.Contains(r.Reply, "pay") {
			t.Fatalf("status %+v", r)
		}
	})

	t.Run("video", func(t *testing.T) {
		k := newTalker(t, e.anon)
		r := k.say("Make a video of a drone flying over a coastline at sunset, 10 seconds, vertical")
		expect(t, r, axp.TalkShaping, "budget")
		if r.Draft.Type != "video" || fmt.Sprint(r.Draft.Params["duration"]) != "10" || r.Draft.Params["aspect"] != "9:16" {
			t.Fatalf("draft %+v", r.Draft)
		}
		expect(t, k.say("10 dollars"), axp.TalkShaping, "deadline")
		r = k.say("no rush")
		expect(t, r, axp.TalkConfirm, "confirm")
		if r.Quote.Price.Amount != usd(t, "4.00") || r.Draft.DeadlineMinutes != nil {
			t.Fatalf("quote %+v", r)
		}
		// A change while confirming is taken and re-quoted.
		r = k.say("make it 12 seconds")
		expect(t, r, axp.TalkConfirm, "confirm")
		if r.Quote.Price.Amount != usd(t, "4.50") {
			t.Fatalf("re-quote %+v", r.Quote)
		}
		expect(t, k.say("yes"), axp.TalkListed, "offer")
		r = k.say("cheapest")
		expect(t, r, axp.TalkAssigned, "")
		if got := getTask(t, k.buyerClient(), r.TaskID); got.Seller == nil || got.Seller.ID != cheapVideo.MemberID || got.Params["duration"] != json.Number("12") && fmt.Sprint(got.Params["duration"]) != "12" {
			t.Fatalf("task %+v", got)
		}
	})

	t.Run("image", func(t *testing.T) {
		k := newTalker(t, e.anon)
		r := k.say("I need some images")
		expect(t, r, axp.TalkShaping, "prompt")
		r = k.say("a red fox in the snow, 3 images")
		expect(t, r, axp.TalkShaping, "budget")
		if fmt.Sprint(r.Draft.Params["count"]) != "3" || !strings.Contains(fmt.Sprint(r.Draft.Params["prompt"]), "red fox") {
			t.Fatalf("draft %+v", r.Draft)
		}
		r = k.say("free")
		expect(t, r, axp.TalkShaping, "deadline")
		if r.Draft.PaymentMethod != axp.PayFree {
			t.Fatalf("draft %+v", r.Draft)
		}
		expect(t, k.say("30 minutes"), axp.TalkConfirm, "confirm")
		r = k.say("yes")
		expect(t, r, axp.TalkListed, "offer")
		if len(r.Offers) != 1 || r.Offers[0].Seller.ID != freeImages.MemberID || r.Offers[0].PriceUSD != 0 {
			t.Fatalf("free offers %+v", r.Offers)
		}
		r = k.say("ok")
		expect(t, r, axp.TalkAssigned, "")
		if r.TaskStatus != axp.TaskPaid || r.Payment != nil || !strings.Contains(r.Reply, "free job") {
			t.Fatalf("a free job starts at once: %+v", r)
		}
	})

	t.Run("transcription", func(t *testing.T) {
		k := newTalker(t, e.anon)
		r := k.say("Please transcribe my 30 minute podcast episode")
		expect(t, r, axp.TalkShaping, "source_url")
		if fmt.Sprint(r.Draft.Params["minutes"]) != "30" {
			t.Fatalf("draft %+v", r.Draft)
		}
		r = k.say("https://media.example/ep1.mp3")
		expect(t, r, axp.TalkShaping, "budget")
		if r.Draft.Params["source_url"] != "https://media.example/ep1.mp3" {
			t.Fatalf("the data-source link is kept in the params: %+v", r.Draft.Params)
		}
		expect(t, k.say("2 dollars"), axp.TalkShaping, "deadline")
		r = k.say("tomorrow")
		expect(t, r, axp.TalkConfirm, "confirm")
		if r.Quote.Price.Amount != usd(t, "0.60") || *r.Draft.DeadlineMinutes != 24*60 {
			t.Fatalf("confirmation %+v", r)
		}
		expect(t, k.say("go ahead"), axp.TalkListed, "offer")
		r = k.say("the fastest")
		expect(t, r, axp.TalkAssigned, "")
		if got := getTask(t, k.buyerClient(), r.TaskID); got.Seller.ID != fastEars.MemberID || got.Params["source_url"] != "https://media.example/ep1.mp3" {
			t.Fatalf("task %+v", got)
		}
		// The stored message passed the party-text filters: the link is gone from it.
		conv := e.conversation(k.id)
		if m := conv.Messages[2]; m.Role != "buyer" || strings.Contains(m.Text, "media.example") || m.Screening == nil || len(m.Screening.Removed) == 0 {
			t.Fatalf("stored message %+v", m)
		}
	})

	t.Run("translation", func(t *testing.T) {
		k := newTalker(t, e.anon)
		r := k.say("Translate this into French: The quick brown fox jumps over the lazy dog.")
		expect(t, r, axp.TalkShaping, "budget")
		if r.Draft.Type != "translation" || r.Draft.Params["target_language"] != "french" || fmt.Sprint(r.Draft.Params["words"]) != "9" ||
			!strings.HasPrefix(fmt.Sprint(r.Draft.Params["text"]), "The quick brown fox") {
			t.Fatalf("draft %+v", r.Draft)
		}
		expect(t, k.say("$3"), axp.TalkShaping, "deadline")
		expect(t, k.say("1 hour"), axp.TalkConfirm, "confirm")
		r = k.say("status")
		expect(t, r, axp.TalkConfirm, "confirm")
		if !strings.Contains(r.Reply, "translation") || r.Quote.Price.Amount != usd(t, "0.50") {
			t.Fatalf("status %+v", r)
		}
		r = k.say("yes please")
		expect(t, r, axp.TalkListed, "offer")
		want := r.Offers[0]
		r = k.say("1")
		expect(t, r, axp.TalkAssigned, "")
		if got := getTask(t, k.buyerClient(), r.TaskID); got.ChosenOfferID != want.OfferID {
			t.Fatalf("task %+v", got)
		}
	})
}

// TestTalkCustomTypeMember: a buyer member shapes a job outside the catalog and continues with
// its own member secret; the assistant names the type from the answer and lists it.
func TestTalkCustomTypeMember(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	buyer := e.register(map[string]any{"roles": []string{"buyer"}})
	first := e.instantSeller("web-research", "15.00", 600, nil, map[string]any{"name": "Digger"})
	e.instantSeller("web-research", "25.00", 120, nil, map[string]any{"name": "Sleuth"})

	k := newTalker(t, buyer.c)
	r := k.say("I need research on competitor pricing for three SaaS tools")
	expect(t, r, axp.TalkShaping, "type")
	if r.ContinueWith != axp.ContinueMemberSecret || r.Token != "" {
		t.Fatalf("a member continues with its secret: %+v", r)
	}
	r = k.say("web-research")
	expect(t, r, axp.TalkShaping, "budget")
	if r.Draft.Type != "web-research" || !strings.Contains(r.Draft.Description, "competitor pricing") {
		t.Fatalf("draft %+v", r.Draft)
	}
	expect(t, k.say("$20"), axp.TalkShaping, "deadline")
	r = k.say("3 days")
	expect(t, r, axp.TalkConfirm, "confirm")
	if r.Quote != nil || !strings.Contains(r.Reply, "no catalog price") {
		t.Fatalf("custom confirmation %+v", r)
	}
	r = k.say("sure")
	expect(t, r, axp.TalkListed, "offer")
	if r.Token != "" || len(r.Offers) != 2 {
		t.Fatalf("listing %+v", r)
	}
	// Sleuth is over budget: the recommendation stays within it.
	if r.RecommendedOffer != offerOf(t, r.Offers, first.MemberID).OfferID || !strings.Contains(r.Reply, "within your budget") {
		t.Fatalf("recommendation %s: %s", r.RecommendedOffer, r.Reply)
	}
	offered := r.Offers
	r = k.say("the first one")
	expect(t, r, axp.TalkAssigned, "")
	var mine axp.TaskList
	mine = *callOp(t, buyer.c, contract.ListMyTasks, axp.MyTasksQuery{})
	if len(mine.Tasks) != 1 || mine.Tasks[0].Type != "web-research" || mine.Tasks[0].Seller == nil || mine.Tasks[0].Seller.ID != offered[0].Seller.ID {
		t.Fatalf("member tasks %+v", mine.Tasks)
	}
	if mine.Tasks[0].Status != axp.TaskAwaitingPayment || *mine.Tasks[0].DeadlineMinutes != 3*24*60 {
		t.Fatalf("task %+v", mine.Tasks[0])
	}
}

// TestTalkTokens: a conversation continues only with the token that continues it; a wrong or
// missing one, another conversation's, a member secret, an unknown conversation: 403.
func TestTalkTokens(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "1.00", 5, nil, nil)
	k := newTalker(t, e.anon)
	k.say("write a limerick about a cat into a text file")
	other := newTalker(t, e.anon)
	other.say("hello")
	member := e.register(map[string]any{"roles": []string{"buyer"}})
	forbidden := func(c *client.Client, id string) {
		t.Helper()
		_, err := doOp(c, contract.Talk, axp.TalkBody{Message: "$5", ConversationID: id})
		apiErr(t, err, axp.CodeForbidden, "conversation_id")
	}
	forbidden(e.anon, k.id)                                     // missing
	forbidden(e.anon.With("ct_"+strings.Repeat("0", 48)), k.id) // wrong
	forbidden(e.anon.With(other.token), k.id)                   // another conversation's
	forbidden(member.c, k.id)                                   // a member secret
	forbidden(e.anon.With(k.token), "cnv_unknown")              // an unknown conversation
	resp, _ := doOp(e.anon, contract.Talk, axp.TalkBody{Message: "$5", ConversationID: k.id})
	checkErrorBody(t, resp, http.StatusForbidden, "forbidden")

	// Bad input names its field.
	_, err := doOp(e.anon, contract.Talk, axp.TalkBody{Message: "   "})
	apiErr(t, err, axp.CodeInvalidInput, "message")
	_, err = doOp(e.anon, contract.Talk, axp.TalkBody{Message: strings.Repeat("x", 4001)})
	apiErr(t, err, axp.CodeInvalidInput, "message")
	_, err = do(e.anon, "talk", map[string]any{})
	apiErr(t, err, axp.CodeInvalidInput, "message")

	// Once the job is listed, the buyer token continues it and the conversation token no longer does.
	convToken := k.token
	k.say("$5")
	k.say("no deadline")
	r := k.say("yes")
	if r.Stage != axp.TalkListed || r.Token == convToken {
		t.Fatalf("listing %+v", r)
	}
	forbidden(e.anon.With(convToken), k.id)
	forbidden(e.anon.With(other.token), k.id)
	if r := k.say("status"); r.TaskID == "" || r.Stage != axp.TalkListed {
		t.Fatalf("status with the buyer token %+v", r)
	}
	// The token is stored hashed: neither token is in the stored conversation.
	raw, _ := json.Marshal(e.conversation(k.id))
	if strings.Contains(string(raw), convToken) || strings.Contains(string(raw), k.token) {
		t.Fatalf("a token is stored in the clear: %s", raw)
	}

	// A member's conversation continues with that member's secret only.
	mk := newTalker(t, member.c)
	mk.say("I need a poem about rain in a text file")
	forbidden(e.anon.With(k.token), mk.id)
	forbidden(e.register(map[string]any{"roles": []string{"buyer"}}).c, mk.id)
	if r := mk.say("$2"); r.Asking != "deadline" {
		t.Fatalf("member continuation %+v", r)
	}
}

// TestTalkMCP: the talk tool over /mcp continues a conversation with its token as Bearer.
func TestTalkMCP(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("image", "0.50", 5, nil, nil)
	first := toolOK(t, e.mcpCall("", "talk", map[string]any{"message": "an image of a lighthouse in a storm"}))
	token, id := first["token"].(string), first["conversation_id"].(string)
	if first["asking"] != "budget" || !strings.HasPrefix(token, "ct_") {
		t.Fatalf("first answer %+v", first)
	}
	next := toolOK(t, e.mcpCall(token, "talk", map[string]any{"message": "$2", "conversation_id": id}))
	if next["asking"] != "deadline" {
		t.Fatalf("continuation %+v", next)
	}
	toolErr(t, e.mcpCall("", "talk", map[string]any{"message": "$2", "conversation_id": id}), axp.CodeForbidden, "conversation_id")
	toolErr(t, e.mcpCall("ct_wrong", "talk", map[string]any{"message": "$2", "conversation_id": id}), axp.CodeForbidden, "conversation_id")
	toolOK(t, e.mcpCall(token, "talk", map[string]any{"message": "in 1 hour", "conversation_id": id}))
	listed := toolOK(t, e.mcpCall(token, "talk", map[string]any{"message": "yes", "conversation_id": id}))
	bt := listed["token"].(string)
	if listed["stage"] != axp.TalkListed || !strings.HasPrefix(bt, "bt_") {
		t.Fatalf("listing %+v", listed)
	}
	done := toolOK(t, e.mcpCall(bt, "talk", map[string]any{"message": "the first one", "conversation_id": id}))
	if done["stage"] != axp.TalkAssigned || done["task_status"] != axp.TaskAwaitingPayment {
		t.Fatalf("assignment %+v", done)
	}
}

// chatStandIn is a loopback OpenAI-compatible chat-completions server that drives a talk
// conversation with tool calls, as a model would.
type chatStandIn struct {
	srv  *httptest.Server
	fail atomic.Bool
	mu   sync.Mutex
	raws []string
}

var reListedTask = regexp.MustCompile(`listed as task ([A-Za-z0-9_-]+)`)

func newChatStandIn(t *testing.T) *chatStandIn {
	s := &chatStandIn{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []axp.AITurn     `json:"messages"`
			Tools    []map[string]any `json:"tools"`
		}
		buf, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.raws = append(s.raws, string(buf))
		s.mu.Unlock()
		if s.fail.Load() || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"the model is overloaded"}}`, http.StatusInternalServerError)
			return
		}
		if err := json.Unmarshal(buf, &req); err != nil || len(req.Tools) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		msgs := req.Messages
		last := msgs[len(msgs)-1]
		text := func(s string) map[string]any { return map[string]any{"role": "assistant", "content": s} }
		tool := func(name string, args any) map[string]any {
			b, _ := json.Marshal(args)
			return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_" + name, "type": "function",
				"function": map[string]any{"name": name, "arguments": string(b)}}}}
		}
		var msg map[string]any
		switch last.Role {
		case "user":
			switch u := strings.ToLower(last.Content); {
			case strings.Contains(u, "haiku"):
				msg = tool("get_quote", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku about the sea"}})
			case strings.Contains(u, "yes"):
				msg = tool("create_task", map[string]any{"type": "text-file", "params": map[string]any{"prompt": "a haiku about the sea"},
					"buyer_token": "bt_made_up_by_the_model"})
			case strings.Contains(u, "first"):
				id := reListedTask.FindStringSubmatch(msgs[0].Content)
				if id == nil {
					msg = text("I do not know the task.")
					break
				}
				msg = tool("get_task", map[string]any{"id": id[1]})
			default:
				msg = text("What do you need?")
			}
		case "tool":
			prev := msgs[len(msgs)-2]
			switch prev.ToolCalls[0].Function.Name {
			case "get_quote":
				msg = text("The catalog price is US$0.20. Shall I list it? You can also write to me at bob@example.com.")
			case "create_task":
				msg = text("Listed. " + fmt.Sprint(strings.Count(last.Content, `"offer_id"`)) + " offers so far; I recommend the first.")
			case "get_task":
				var task axp.Task
				json.Unmarshal([]byte(last.Content), &task)
				msg = tool("choose_offer", map[string]any{"id": task.ID, "offer_id": task.Offers[0].OfferID})
			case "choose_offer":
				msg = text("Assigned. Pay as shown and tell me the transaction hash.")
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "message": msg}},
			"usage":   map[string]any{"prompt_tokens": 900, "completion_tokens": 40}})
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *chatStandIn) bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.raws...)
}

// TestTalkModel: with ai_base_url set, a model drives the conversation through tool calls that run
// as buyer operations with the caller's credentials; the model never sees a buyer token; every
// call is recorded for /api/admin/ai; its words pass the contact-detail filter; a model failure
// falls back to the built-in assistant for that turn.
func TestTalkModel(t *testing.T) {
	t.Parallel()
	ai := newChatStandIn(t)
	const key = "sk-test-talk-0123456789"
	e := newMarket(t, func(c *daemon.Config) { c.AIBaseURL, c.AIModel, c.AIAPIKey = ai.srv.URL+"/v1", "stand-in-talk", key })
	seller := e.instantSeller("text-file", "1.00", 5, nil, nil)

	k := newTalker(t, e.anon)
	r := k.say("I would like a haiku about the sea")
	if r.Assistant != axp.AssistantModel || r.Quote != nil && r.Stage != axp.TalkShaping || !strings.Contains(r.Reply, "US$0.20") {
		t.Fatalf("first answer %+v", r)
	}
	if strings.Contains(r.Reply, "bob@example.com") || !strings.HasPrefix(r.Token, "ct_") {
		t.Fatalf("the model's words pass the filters: %q", r.Reply)
	}
	r = k.say("yes, list it")
	if r.Assistant != axp.AssistantModel || r.Stage != axp.TalkListed || r.TaskID == "" || !strings.HasPrefix(r.Token, "bt_") || len(r.Offers) != 1 {
		t.Fatalf("listing %+v", r)
	}
	r = k.say("the first one")
	if r.Assistant != axp.AssistantModel || r.Stage != axp.TalkAssigned || r.TaskStatus != axp.TaskAwaitingPayment || r.Payment == nil {
		t.Fatalf("assignment %+v", r)
	}
	if got := getTask(t, k.buyerClient(), r.TaskID); got.Seller == nil || got.Seller.ID != seller.MemberID {
		t.Fatalf("task %+v", got)
	}
	// The model never saw a credential: neither the conversation token nor the buyer token is
	// in anything sent to it, and the key went only as its own Bearer.
	for _, b := range ai.bodies() {
		if strings.Contains(b, k.token) || strings.Contains(b, "ct_") || strings.Contains(b, key) {
			t.Fatalf("a credential reached the model: %s", b)
		}
	}
	var calls axp.AICallList
	calls = *callOp(t, e.admin, contract.AdminAI, axp.AIQuery{})
	talks := 0
	for _, c := range calls.Calls {
		if c.Purpose == "talk" {
			talks++
			if c.ConversationID != k.id || c.Error != "" || c.PromptTokens != 900 {
				t.Fatalf("recorded call %+v", c)
			}
		}
	}
	if talks != 7 {
		t.Fatalf("%d talk calls recorded, want 7", talks)
	}

	// The model fails: the built-in assistant answers that turn, and the failure is recorded.
	ai.fail.Store(true)
	k2 := newTalker(t, e.anon)
	r = k2.say("I need a poem about the moon in a text file")
	if r.Assistant != axp.AssistantBuiltIn || r.Asking != "budget" || r.Draft.Type != "text-file" {
		t.Fatalf("fallback %+v", r)
	}
	ai.fail.Store(false)
	r = k2.say("I would like a haiku instead")
	if r.Assistant != axp.AssistantModel {
		t.Fatalf("the model answers again once it works: %+v", r)
	}
	calls = *callOp(t, e.admin, contract.AdminAI, axp.AIQuery{})
	failed := 0
	for _, c := range calls.Calls {
		if c.Purpose == "talk" && c.Error != "" && c.ConversationID == k2.id {
			failed++
		}
	}
	if failed != 1 {
		t.Fatalf("%d failed talk calls recorded, want 1", failed)
	}
}

// A seller asks a clarifying question: the assistant asks the buyer, passes the answer on
// (answer_clarifications), and the seller's new offer is presented and assigned.
func TestTalkClarifications(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	push := e.newPushSeller("proofreading", map[string]func(map[string]any) any{
		"quote": func(in map[string]any) any {
			if strings.Contains(fmt.Sprint(in["description"]), "British") {
				return map[string]any{"price_usd": 12, "eta_minutes": 90, "note": "British spelling throughout."}
			}
			return map[string]any{"clarify": true, "questions": []string{"British or American spelling?"}}
		},
	}, nil, map[string]any{"name": "Red Pen"})

	k := newTalker(t, e.anon)
	r := k.say("Please proofread my 20-page thesis on river ecology")
	expect(t, r, axp.TalkShaping, "type")
	expect(t, k.say("proofreading"), axp.TalkShaping, "budget")
	expect(t, k.say("$30"), axp.TalkShaping, "deadline")
	expect(t, k.say("2 days"), axp.TalkConfirm, "confirm")
	r = k.say("yes")
	expect(t, r, axp.TalkListed, "clarify")
	if len(r.Offers) != 0 || !strings.Contains(r.Reply, "British or American spelling?") {
		t.Fatalf("the question is not asked: %s", r.Reply)
	}
	r = k.say("British, please")
	expect(t, r, axp.TalkListed, "")
	if !strings.Contains(r.Reply, "passed your answer") {
		t.Fatalf("answer: %s", r.Reply)
	}
	// The seller is asked again with the answer in its brief, and offers; status shows the offer.
	eventually(t, func() error {
		if r = k.say("status"); len(r.Offers) != 1 {
			return fmt.Errorf("no offer after the answer: %s", r.Reply)
		}
		return nil
	})
	if r.Offers[0].Seller.ID != push.MemberID {
		t.Fatalf("offers %+v", r.Offers)
	}
	expect(t, k.say("yes"), axp.TalkAssigned, "")
}

// TestTalkTranslateFree: "free" answered after "translate hello world into French" is the budget
// only (the brief named the text); after delivery the next steps are axp commands; a caller that
// keeps its tokens (the CLI) is not asked to keep them.
func TestTalkTranslateFree(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	seller := e.instantSeller("translation", "1.00", 10, nil, map[string]any{"name": "Linguist", "payment_methods": []string{"crypto", "free"}})

	k := newTalker(t, e.anon)
	r := k.say("translate hello world into French")
	expect(t, r, axp.TalkShaping, "budget")
	r = k.say("free")
	expect(t, r, axp.TalkShaping, "deadline")
	if r.Draft.Params["text"] != "hello world" || r.Draft.PaymentMethod != axp.PayFree || r.Draft.BudgetUSD == nil || *r.Draft.BudgetUSD != 0 {
		t.Fatalf("draft %+v", r.Draft)
	}

	// Asked for the text, "free" and "tomorrow" are terms, not the text.
	k2 := newTalker(t, e.anon)
	expect(t, k2.say("translate my README into French"), axp.TalkShaping, "text")
	r = k2.say("free")
	expect(t, r, axp.TalkShaping, "text")
	if r.Draft.Params["text"] != nil || r.Draft.PaymentMethod != axp.PayFree {
		t.Fatalf("free as the text: %+v", r.Draft)
	}
	r = k2.say("tomorrow")
	expect(t, r, axp.TalkShaping, "text")
	if r.Draft.Params["text"] != nil || r.Draft.DeadlineMinutes == nil || *r.Draft.DeadlineMinutes != 24*60 {
		t.Fatalf("tomorrow as the text: %+v", r.Draft)
	}

	// The CLI keeps the tokens: the listing does not ask to keep the buyer token.
	keeps := func(msg string) axp.TalkReply {
		t.Helper()
		var out axp.TalkReply
		c := e.anon.With(k.token)
		if err := c.Call(context.Background(), "talk", map[string]any{"message": msg, "conversation_id": k.id, "keeps_tokens": true}, &out); err != nil {
			t.Fatalf("talk %q: %v", msg, err)
		}
		if out.Token != "" {
			k.token = out.Token
		}
		return out
	}
	expect(t, keeps("no rush"), axp.TalkConfirm, "confirm")
	r = keeps("yes")
	expect(t, r, axp.TalkListed, "offer")
	if strings.Contains(r.Reply, "keep it") || r.Token == "" {
		t.Fatalf("listing for a caller that keeps tokens: %s", r.Reply)
	}
	r = keeps("ok")
	expect(t, r, axp.TalkAssigned, "")
	if err := seller.c.Call(context.Background(), "deliver", map[string]any{"id": r.TaskID, "content": "bonjour le monde"}, nil); err != nil {
		t.Fatal(err)
	}
	r = keeps("status")
	for _, want := range []string{"axp task deliverable " + r.TaskID + " -o FILE", "axp task accept " + r.TaskID, "axp task dispute " + r.TaskID + " --reason TEXT"} {
		if !strings.Contains(r.Reply, want) {
			t.Errorf("after delivery the reply lacks %q: %s", want, r.Reply)
		}
	}
	if strings.Contains(r.Reply, "GET /api") || strings.Contains(r.Reply, "buyer token") {
		t.Errorf("after delivery, for the CLI: %s", r.Reply)
	}
	// Over the API the operations are named too.
	if r := k.say("status"); !strings.Contains(r.Reply, "get_deliverable, accept_task, dispute_task") {
		t.Errorf("after delivery, over the API: %s", r.Reply)
	}
}

// TestTalkFollowsTheConversation: an answer that fills nothing ("yes" to the budget question) is
// met with "I did not catch" and the question with its choices, not the same question as if
// unheard; a new request in a conversation about a listed task says how to start a new one
// instead of answering with the old task's status; offers' badges are words.
func TestTalkFollowsTheConversation(t *testing.T) {
	t.Parallel()
	e := newMarket(t)
	e.instantSeller("text-file", "0.50", 5, nil, nil)
	k := newTalker(t, e.anon)
	expect(t, k.say("I need a haiku about the sea as a text file"), axp.TalkShaping, "budget")
	r := k.say("yes")
	expect(t, r, axp.TalkShaping, "budget")
	if !strings.HasPrefix(r.Reply, `I did not catch the budget in "yes".`) || !strings.Contains(r.Reply, "'free'") {
		t.Fatalf("yes to the budget: %s", r.Reply)
	}
	k.say("$5")
	k.say("tomorrow")
	r = k.say("yes")
	if r.TaskID == "" || !strings.Contains(r.Reply, "(new)") {
		t.Fatalf("listed: %s", r.Reply)
	}
	for _, m := range []string{"I also need an image of a cat for a logo", "and translate my menu into French please"} {
		r = k.say(m)
		if !strings.Contains(r.Reply, "start a new conversation") || !strings.Contains(r.Reply, "axp talk --new") || r.TaskID != k.last.TaskID {
			t.Fatalf("a new request in a listed task's conversation: %s", r.Reply)
		}
	}
	if r = k.say("the first one"); r.Stage != axp.TalkAssigned {
		t.Fatalf("choosing after a new request: %s %s", r.Stage, r.Reply)
	}
}
