package talk_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdtest"
	"github.com/axp-exchange/axp/cmd/talk"
)

// TestTalkCommand holds a conversation one message per command, as a script would, and then one
// over standard input; the buyer token of the listed job is saved for the task commands.
func TestTalkCommand(t *testing.T) {
	x := cmdtest.NewExchange(t)
	seller := x.MustSeller(cmdtest.SellerSpec{Name: "Quick Writer", TaskType: "text-file", Price: "1.50", ETA: 10})
	f, s := cmdtest.Factory(t, x.URL, nil)
	say := func(args ...string) string {
		t.Helper()
		s.Reset()
		if err := cmdtest.Exec(talk.NewCmd(f, nil), args...); err != nil {
			t.Fatalf("axp talk %q: %v (%s)", args, err, s.ErrOut)
		}
		return s.Out.String()
	}
	if out := say("a haiku about autumn leaves in a text file"); !strings.Contains(out, "budget") {
		t.Fatalf("first reply %q", out)
	}
	// The command has ended: the question says how to answer instead of looking like a prompt.
	if !strings.Contains(s.ErrOut.String(), `Answer with: axp talk "YOUR ANSWER"`) {
		t.Errorf("a one-message question: stderr %q, stdout %q", s.ErrOut, s.Out)
	}
	say("$5")
	if out := say("no rush"); !strings.Contains(out, "US$0.20") || !strings.Contains(out, "Shall I list it?") {
		t.Fatalf("confirmation %q", out)
	}
	if out := say("yes"); !strings.Contains(out, "Quick Writer") || !strings.Contains(out, "I recommend #1") || strings.Contains(out, "keep it") {
		t.Fatalf("listing (the CLI saves the buyer token itself) %q", out)
	}
	creds, err := f.ExchangeCredentials()
	if err != nil || len(creds.BuyerTokens) != 1 {
		t.Fatalf("the buyer token is saved: %+v %v", creds, err)
	}
	out := say("the first one", "--json")
	var r axp.TalkReply
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Stage != axp.TalkAssigned || r.TaskStatus != axp.TaskAwaitingPayment {
		t.Fatalf("--json %q: %v", out, err)
	}
	var task axp.Task
	x.Call(x.Anon.With(creds.BuyerTokens[r.TaskID]), "get_task", map[string]any{"id": r.TaskID}, &task)
	if task.Seller == nil || task.Seller.ID != seller.MemberID {
		t.Fatalf("task %+v", task)
	}

	// Standard input: one message a line, a new conversation.
	s.Reset()
	s.In.WriteString("I need some images\n\na lighthouse at dusk\n$2\nquit\nnever sent\n")
	if err := cmdtest.Exec(talk.NewCmd(f, nil), "--new"); err != nil {
		t.Fatal(err)
	}
	if lines := cmdtest.Lines(s.Out.String()); len(lines) != 3 || !strings.Contains(lines[0], "What should the image show?") ||
		!strings.Contains(lines[1], "budget") || !strings.Contains(lines[2], "By when") {
		t.Fatalf("stdin conversation:\n%s", s.Out)
	}
	if err := cmdtest.Exec(talk.NewCmd(f, nil), " "); err == nil {
		t.Fatal("an empty message is a usage error")
	}
}
