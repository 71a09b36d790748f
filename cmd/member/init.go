package member

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"text/template"

	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// InitOptions are the inputs of `axp member init`.
type InitOptions struct {
	IO      *cmdutil.IOStreams
	Dir     string
	Role    string
	Module  string
	Replace string
	Force   bool
	// Exchange is the exchange the agent is generated against (--exchange, AXP_EXCHANGE or the
	// exchange of axp login); its README runs the agent there.
	Exchange string
}

func newInitCmd(f *cmdutil.Factory) *cobra.Command {
	o := &InitOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "init DIR --role seller|buyer",
		Short: "Write a small Go module of a member agent built on memberkit",
		Long: `Write DIR/main.go, DIR/go.mod and DIR/README.md: a seller (or buyer) agent on memberkit that
builds and passes the exchange's conformance test as it stands. Replace its work function with
your agent's.

axp is not on a module proxy yet: build against a checkout of the axp repository with
--replace PATH (a replace directive in go.mod), or edit the commented replace line later.`,
		Example: `  axp member init my-seller --role seller --replace ~/src/axp
  cd my-seller && go mod tidy && go build && ./my-seller -exchange http://127.0.0.1:8420`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Dir = args[0]
			o.Exchange = exchangeGiven(f)
			if u, source := f.ExchangeSource(); o.Exchange == "" && source == "axp login" {
				o.Exchange = u
			}
			return runInit(o)
		},
	}
	c.Flags().StringVar(&o.Role, "role", "", "seller or buyer (required)")
	c.Flags().StringVar(&o.Module, "module", "", "module path (default example.com/<DIR name>)")
	c.Flags().StringVar(&o.Replace, "replace", "", "path of an axp checkout to build against (a replace directive)")
	c.Flags().BoolVar(&o.Force, "force", false, "overwrite existing files")
	return c
}

// axpModule is the module memberkit lives in.
const axpModule = "github.com/axp-exchange/axp"

type initData struct {
	Module, Name, Role, GoVersion, Version, Replace, Exchange string
}

// defaultExchange is the address `axp serve` listens on by default.
const defaultExchange = "http://127.0.0.1:8420"

func runInit(o *InitOptions) error {
	if o.Role == "" {
		return &cmdutil.UsageError{Err: errors.New("--role is required: seller or buyer")}
	}
	if o.Role != "seller" && o.Role != "buyer" {
		return &cmdutil.UsageError{Err: fmt.Errorf("--role must be seller or buyer, not %q", o.Role)}
	}
	name := filepath.Base(filepath.Clean(o.Dir))
	d := initData{Module: o.Module, Name: name, Role: o.Role, GoVersion: goVersion(), Version: axpVersion(), Exchange: o.Exchange}
	if d.Exchange == "" {
		d.Exchange = defaultExchange
	}
	if d.Module == "" {
		d.Module = "example.com/" + modName(name)
	}
	if o.Replace != "" {
		abs, err := filepath.Abs(o.Replace)
		if err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("--replace %s: no go.mod there (give the root of an axp checkout)", o.Replace)}
		}
		d.Replace = abs
	}
	files := map[string]*template.Template{"go.mod": goModTmpl, "README.md": readmeTmpl}
	if o.Role == "seller" {
		files["main.go"] = sellerMainTmpl
	} else {
		files["main.go"] = buyerMainTmpl
	}
	if !o.Force {
		for f := range files {
			if _, err := os.Stat(filepath.Join(o.Dir, f)); err == nil {
				return &cmdutil.UsageError{Err: fmt.Errorf("%s already exists (use --force to overwrite)", filepath.Join(o.Dir, f))}
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"go.mod", "main.go", "README.md"} {
		var b bytes.Buffer
		if err := files[f].Execute(&b, d); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.Dir, f), b.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(o.IO.Out, filepath.Join(o.Dir, f))
	}
	if d.Replace != "" {
		// The checkout's go.sum holds the checksums of every module the new one needs, so
		// `go mod tidy` verifies them without asking the checksum database (offline, or behind
		// a proxy that serves modules but not the database).
		if sum, err := os.ReadFile(filepath.Join(d.Replace, "go.sum")); err == nil {
			dst := filepath.Join(o.Dir, "go.sum")
			if _, err := os.Stat(dst); errors.Is(err, fs.ErrNotExist) || o.Force {
				if err := os.WriteFile(dst, sum, 0o644); err != nil {
					return err
				}
				fmt.Fprintln(o.IO.Out, dst)
			}
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "wrote a %s agent in %s; next: cd %s && go mod tidy && go build && ./%s -exchange %s\n", o.Role, o.Dir, o.Dir, name, d.Exchange)
	if d.Replace == "" {
		fmt.Fprintf(o.IO.ErrOut, "note: %s is not on a module proxy yet, so go build cannot fetch it: from the root of a clone of axp run "+
			"axp member init %s --role %s --replace . --force (or uncomment the replace line in %s and point it at a clone)\n",
			axpModule, o.Dir, o.Role, filepath.Join(o.Dir, "go.mod"))
	}
	return nil
}

var nonModChars = regexp.MustCompile(`[^a-z0-9._-]+`)

func modName(s string) string {
	s = nonModChars.ReplaceAllString(strings.ToLower(s), "-")
	if s = strings.Trim(s, "-."); s == "" {
		return "axp-member"
	}
	return s
}

// goVersion is the go directive: the version of the toolchain that built axp (which is at least
// what axp needs).
func goVersion() string {
	v := strings.TrimPrefix(runtime.Version(), "go")
	if regexp.MustCompile(`^\d+\.\d+(\.\d+)?$`).MatchString(v) {
		return v
	}
	return "1.26"
}

// axpVersion is the version of axp this binary was built from, or a placeholder that a replace
// directive stands in for.
func axpVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == axpModule && strings.HasPrefix(bi.Main.Version, "v") {
			return bi.Main.Version
		}
		for _, dep := range bi.Deps {
			if dep.Path == axpModule && strings.HasPrefix(dep.Version, "v") {
				return dep.Version
			}
		}
	}
	return "v0.0.0-00010101000000-000000000000"
}

var goModTmpl = template.Must(template.New("go.mod").Delims("[[", "]]").Parse(`module [[.Module]]

go [[.GoVersion]]

require github.com/axp-exchange/axp [[.Version]]

// axp is not on a module proxy yet: build against a checkout of the axp repository.
[[if .Replace]]replace github.com/axp-exchange/axp => [[.Replace]][[else]]// replace github.com/axp-exchange/axp => ../axp[[end]]
`))

var sellerMainTmpl = template.Must(template.New("main.go").Delims("[[", "]]").Parse(`// Command [[.Name]] is a seller agent of an axp exchange, built on memberkit.
//
// On first start it registers with the exchange (the credentials are saved in -dir, readable by
// you only) and verifies; later starts reuse the credentials. It quotes from its skills and does
// each job with work, below: replace it with your agent's real work.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// skills are the task types this seller does (spec 2.2). A skill with min_price_usd and
// typical_eta_minutes is quoted at that price; give instant_price_usd and instant_eta_minutes
// instead for a standing price that needs no quote round.
func skills() []protocol.Skill {
	price, eta := protocol.USD(0, 50), 5
	return []protocol.Skill{{
		TaskType:          "text-file",
		Description:       "Writes a short text file from a prompt",
		MinPriceUSD:       &price,
		TypicalETAMinutes: &eta,
	}}
}

// work does one job and returns what to deliver (text up to 256 KB). It runs after do_task has
// been answered, so it may take as long as the job needs; an error within the first 2 s turns the
// job down, so the buyer can choose another offer.
func work(ctx context.Context, job *memberkit.Job) (memberkit.Deliverable, error) {
	prompt, _ := job.Params["prompt"].(string)
	if prompt == "" {
		prompt = job.Description
	}
	text := fmt.Sprintf("Job %s (%s)\n\n%s\n", job.TaskID, job.TaskType, strings.TrimSpace(prompt))
	return memberkit.Deliverable{Content: text, Filename: "output.txt", MimeType: "text/plain; charset=utf-8"}, nil
}

func main() {
	exchange := flag.String("exchange", os.Getenv("AXP_EXCHANGE"), "exchange URL (needed on first start)")
	dir := flag.String("dir", "member", "directory of the member's credentials")
	name := flag.String("name", "[[.Name]]", "the member's name, on first start")
	listen := flag.String("listen", "127.0.0.1:0", "address the MCP server listens on")
	publicURL := flag.String("public-url", "", "URL the exchange reaches this server at, when not the listen address")
	pull := flag.Bool("pull", false, "run without a server: poll the exchange for work")
	flag.Parse()

	agent := &memberkit.Agent{
		Exchange:     *exchange,
		Dir:          *dir,
		Registration: axp.Registration{Roles: []string{"seller"}, Name: *name, Skills: skills()},
		Listen:       *listen,
		PublicURL:    *publicURL,
		Pull:         *pull,
		Seller:       &memberkit.Worker{Defaults: memberkit.Defaults{Skills: skills()}, Work: work},
		OnStart: func(s memberkit.Started) {
			log.Printf("member %s of %s; MCP at %q", s.MemberID, s.Exchange, s.MCPURL)
		},
		OnVerify: func(v *axp.Verification, err error) {
			if err != nil {
				log.Printf("verification could not run: %v", err)
				return
			}
			for _, s := range v.Steps {
				log.Printf("verify %-14s ok=%v %s %s", s.Name, s.OK, s.Detail, s.Hint)
			}
			log.Printf("verified: %v (%s)", v.Passed, v.State)
		},
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := agent.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
`))

var buyerMainTmpl = template.Must(template.New("main.go").Delims("[[", "]]").Parse(`// Command [[.Name]] is a buyer agent of an axp exchange, built on memberkit.
//
// On first start it registers with the exchange (the credentials are saved in -dir, readable by
// you only) and verifies; later starts reuse the credentials. It is told of the offers on the
// tasks it posts and of their progress: decide what to do with them in the methods below.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
)

// buyer answers the exchange's calls; memberkit.Defaults answers the rest (mediation statements,
// reviews, announcements).
type buyer struct {
	memberkit.Defaults
}

// ReceiveOffers is given the offers on a task this buyer posted. Choose one by posting
// {"offer_id": ...} to in.ChooseURL with the member secret (memberkit.Client.Choose).
func (buyer) ReceiveOffers(ctx context.Context, in protocol.ReceiveOffersInput) error {
	for _, o := range in.Offers {
		log.Printf("task %s: offer %s from %s: %s USD in %d min", in.TaskID, o.OfferID, o.Seller.Name, o.PriceUSD, o.ETAMinutes)
	}
	return nil
}

// TaskUpdate is told that a task changed status (paid, delivered, accepted, released, ...).
func (buyer) TaskUpdate(ctx context.Context, in protocol.TaskUpdateInput) error {
	log.Printf("task %s is %s", in.TaskID, in.Status)
	return nil
}

func main() {
	exchange := flag.String("exchange", os.Getenv("AXP_EXCHANGE"), "exchange URL (needed on first start)")
	dir := flag.String("dir", "member", "directory of the member's credentials")
	name := flag.String("name", "[[.Name]]", "the member's name, on first start")
	listen := flag.String("listen", "127.0.0.1:0", "address the MCP server listens on")
	publicURL := flag.String("public-url", "", "URL the exchange reaches this server at, when not the listen address")
	pull := flag.Bool("pull", false, "run without a server: poll the exchange")
	flag.Parse()

	agent := &memberkit.Agent{
		Exchange:     *exchange,
		Dir:          *dir,
		Registration: axp.Registration{Roles: []string{"buyer"}, Name: *name},
		Listen:       *listen,
		PublicURL:    *publicURL,
		Pull:         *pull,
		Buyer:        buyer{},
		OnStart: func(s memberkit.Started) {
			log.Printf("member %s of %s; MCP at %q", s.MemberID, s.Exchange, s.MCPURL)
		},
		OnVerify: func(v *axp.Verification, err error) {
			if err != nil {
				log.Printf("verification could not run: %v", err)
				return
			}
			for _, s := range v.Steps {
				log.Printf("verify %-14s ok=%v %s %s", s.Name, s.OK, s.Detail, s.Hint)
			}
			log.Printf("verified: %v (%s)", v.Passed, v.State)
		},
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := agent.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
`))

var readmeTmpl = template.Must(template.New("README.md").Delims("[[", "]]").Parse(`# [[.Name]]

A [[.Role]] agent of an [axp](https://github.com/axp-exchange/axp) exchange, built on
` + "`memberkit`" + `.

## Build

axp is not on a module proxy yet, so build against a checkout of the axp repository: ` + "`go.mod`" + `
[[if .Replace]]points at [[.Replace]][[else]]has a commented ` + "`replace`" + ` line; uncomment it and point it at your checkout[[end]].

    go mod tidy
    go build

## Run

    ./[[.Name]] -exchange [[.Exchange]]

On first start the agent registers with the exchange and saves its credentials (member id,
member secret, platform key) in ` + "`./member/credentials.json`" + `, readable by you only; later starts
reuse them (` + "`-dir`" + ` picks another directory). It serves MCP at ` + "`/mcp`" + ` on a free loopback port,
verifies, and sends a heartbeat every hour. ` + "`-public-url`" + ` tells the exchange where to reach it when it
runs behind a tunnel or proxy; ` + "`-pull`" + ` runs it without a server (it polls the exchange instead).

## Check

With the agent running, from the same directory:

    axp member conformance --dir member
[[- if eq .Role "seller"]]
    axp member sandbox --dir member --as seller
[[- else]]
    axp member sandbox --dir member --as buyer
[[- end]]

## Make it yours
[[if eq .Role "seller"]]
- ` + "`skills()`" + ` lists the task types you do and their prices: quotes follow them (instant prices
  exactly, never below ` + "`min_price_usd`" + `), and the conformance test checks that they do.
- ` + "`work()`" + ` does one job and returns the deliverable (text up to 256 KB). Replace it with your
  agent's real work.
- For full control, implement ` + "`memberkit.Seller`" + ` yourself (Quote, DoTask, GetSkills).
[[else]]
- ` + "`ReceiveOffers`" + ` is given the offers on your tasks: choose one with
  ` + "`memberkit.Client.Choose`" + `.
- ` + "`TaskUpdate`" + ` follows the task through paid, delivered, accepted and released.
- Post tasks with ` + "`memberkit.Client.CreateTask`" + ` (your member secret authenticates you).
[[end]]
`))
