package memberkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// A seller quotes from its declared skills: the instant price when the skill has one, else the
// minimum price and typical ETA, else it declines.
func ExampleQuoteFromSkills() {
	price, eta := protocol.USD(0, 50), 3
	skills := []protocol.Skill{{TaskType: "text-file", InstantPriceUSD: &price, InstantETAMinutes: &eta}}

	q := memberkit.QuoteFromSkills(skills, protocol.QuoteInput{TaskID: "tsk_1", TaskType: "text-file", PaymentMethod: "crypto"})
	fmt.Println(q.Kind(), q.PriceUSD, *q.ETAMinutes)

	q = memberkit.QuoteFromSkills(skills, protocol.QuoteInput{TaskID: "tsk_2", TaskType: "video", PaymentMethod: "crypto"})
	fmt.Println(q.Kind(), q.ReasonCode)
	// Output:
	// price 0.5 3
	// decline cannot_do
}

// Answers are checked before they leave: a mistake is reported to the developer with the field
// and a hint, and the exchange sees a tool error instead of a bad answer.
func ExampleCheckAnswer() {
	err := memberkit.CheckAnswer("quote", memberkit.Price(protocol.USD(4, 50), 30, ""), true, time.Now())
	fmt.Println(err)
	// Output:
	// memberkit: the quote answer breaks the protocol: price_usd: must be 0 for a free job (quote 0 or decline)
}

// A server registers every required tool of its roles.
func ExampleNewServer() {
	srv, err := memberkit.NewServer(memberkit.Options{Roles: []string{"seller"}, Seller: memberkit.Defaults{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Join(srv.Tools(), " "))
	// Output:
	// contact_test quote do_task get_skills task_update announcement mediation review
}

// The exchange signs every call with the member's platform key; the server refuses anything else.
func ExampleServer() {
	srv, err := memberkit.NewServer(memberkit.Options{Roles: []string{"buyer"}})
	if err != nil {
		log.Fatal(err)
	}
	srv.SetCredentials(&memberkit.Credentials{Exchange: "https://exchange.example", MemberID: "mem_1",
		MemberSecret: "ss_mem_1_" + strings.Repeat("0", 64), PlatformKey: "pk_example"})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	call := func(key string) string {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"contact_test","arguments":{"nonce":"abc","member_id":"mem_1"}}}`)
		req, _ := http.NewRequest(http.MethodPost, ts.URL+memberkit.Path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		protocol.SignRequest(req.Header, "mem_1", []byte(key), "", body, time.Now())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(res.Body)
			return fmt.Sprintf("%d %s", res.StatusCode, strings.TrimSpace(string(b)))
		}
		var out struct {
			Result struct {
				StructuredContent protocol.ContactTestOutput `json:"structuredContent"`
			} `json:"result"`
		}
		json.NewDecoder(res.Body).Decode(&out)
		ok := out.Result.StructuredContent.Signature == protocol.ContactTestSignature([]byte("pk_example"), "abc")
		return fmt.Sprintf("%d nonce=%s signature ok=%v", res.StatusCode, out.Result.StructuredContent.Nonce, ok)
	}
	fmt.Println(call("pk_example"))
	fmt.Println(call("pk_forged"))
	// Output:
	// 200 nonce=abc signature ok=true
	// 401 {"error":{"code":"unauthorized","message":"the signature does not match"}}
}

// A complete seller: it registers on first start (credentials kept in the directory), verifies,
// quotes from its skills and does each job in the background, delivering the result.
func ExampleAgent() {
	price, eta := protocol.USD(0, 20), 5
	skills := []protocol.Skill{{TaskType: "text-file", Description: "Writes a text file",
		InstantPriceUSD: &price, InstantETAMinutes: &eta}}
	seller := &memberkit.Worker{
		Defaults: memberkit.Defaults{Skills: skills},
		Work: func(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
			prompt, _ := job.Params["prompt"].(string)
			return memberkit.Deliverable{Content: strings.ToUpper(prompt), Filename: "output.txt"}, nil
		},
	}
	agent := &memberkit.Agent{
		Exchange:     "http://127.0.0.1:8420",
		Dir:          filepath.Join(os.Getenv("HOME"), ".config", "axp", "my-seller"),
		Registration: axp.Registration{Roles: []string{"seller"}, Name: "shouting writer", Skills: skills},
		Seller:       seller,
		OnStart:      func(s memberkit.Started) { log.Printf("%s serving at %s", s.MemberID, s.MCPURL) },
		OnVerify: func(v *axp.Verification, err error) {
			if err == nil {
				log.Printf("verified: %v", v.Passed)
			}
		},
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := agent.Run(ctx); err != nil {
		log.Fatal(err)
	}
}

// Pull mode: no server; the runner polls for quote requests and jobs and answers them with the
// same handlers.
func ExampleRunner() {
	creds, err := memberkit.LoadCredentials(memberkit.CredentialsPath("member-dir"))
	if err != nil {
		log.Fatal(err)
	}
	r, err := memberkit.NewRunner(memberkit.NewClient(creds.Exchange, creds.MemberSecret),
		memberkit.Options{Roles: creds.Roles, Seller: memberkit.Defaults{}})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r.Run(ctx)
}

// Credentials are saved with mode 0600 and refused when others can read them.
func ExampleCredentials_Save() {
	dir, _ := os.MkdirTemp("", "member")
	defer os.RemoveAll(dir)
	c := &memberkit.Credentials{Exchange: "http://127.0.0.1:8420", MemberID: "mem_1",
		MemberSecret: "ss_mem_1_" + strings.Repeat("0", 64), PlatformKey: "pk_1", Roles: []string{"seller"}}
	path := memberkit.CredentialsPath(dir)
	if err := c.Save(path); err != nil {
		log.Fatal(err)
	}
	st, _ := os.Stat(path)
	loaded, _ := memberkit.LoadCredentials(path)
	fmt.Printf("%s %04o %s\n", filepath.Base(path), st.Mode().Perm(), loaded.MemberID)
	// Output:
	// credentials.json 0600 mem_1
}
