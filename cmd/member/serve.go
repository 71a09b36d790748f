package member

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/axp-exchange/axp/protocol"
	"github.com/spf13/cobra"
)

// ServeOptions are the inputs of `axp member serve`.
type ServeOptions struct {
	IO     *cmdutil.IOStreams
	Getenv func(string) string
	Role   string
	// Exchange is the exchange given with --exchange or $AXP_EXCHANGE; needed on first start,
	// later it must be the one of the saved credentials.
	Exchange    string
	Name        string
	Listen      string
	PublicURL   string
	Dir         string
	SkillsFile  string
	Exec        string
	ExecTimeout time.Duration
	Pull        bool
	PollEvery   time.Duration
	// PaymentRetry is how often, in push mode, accepted jobs not yet asked for payment are asked.
	PaymentRetry time.Duration
	// AllowReplays accepts a signed call again within its 300 s window (off: refused).
	AllowReplays bool
	// PayoutAddress is the seller's stablecoin address (set on start when it differs).
	PayoutAddress string
	// NoPaymentRequest turns off asking to be paid when a job is accepted.
	NoPaymentRequest bool
	// StatementCmd writes the member's mediation statements (empty: memberkit's neutral default).
	StatementCmd string
	// Remembered is the exchange of the last `axp login`, used on first start when Exchange is
	// empty.
	Remembered string
	// JSON prints one JSON object per event on stdout.
	JSON bool
	// Ready, when set, is told once the member runs (tests).
	Ready func(memberkit.Started)
}

func newServeCmd(f *cmdutil.Factory) *cobra.Command {
	o := &ServeOptions{IO: f.IO, Getenv: f.Getenv}
	c := &cobra.Command{
		Use:   "serve --role seller|buyer --exchange URL",
		Short: "Run a seller or buyer agent: register, verify, and answer the exchange",
		Long: `Run a member agent. It serves MCP at /mcp on --listen (printing the URL), registers with the
exchange on first start (credentials saved in --dir), reuses the credentials later, verifies
(printing each step) and sends a heartbeat every hour. With --pull it runs without a server and
polls the exchange instead. The exchange (--exchange, $AXP_EXCHANGE, else the one of the last
'axp login') is needed on first start; later the saved credentials name it, and the skills file, if given, replaces the registered skills.

A seller quotes from --skills (a YAML or JSON list of skills: task_type, description,
min_price_usd, typical_eta_minutes, instant_price_usd, instant_eta_minutes, guarantee); instant
prices are honoured. For each job it runs --exec through the shell with the job (the do_task
input) as JSON on stdin, and delivers what the command writes on stdout (up to 256 KB; the mime
type is detected). A command that fails within 2 s turns the job down; a later failure is
reported. A buyer logs the offers and task updates it receives.

When a dispute or review objection goes to the Mediator, the exchange asks for the member's
statement: --statement-cmd runs through the shell with the request as JSON on stdin and writes the
statement on stdout (text, or {"statement": ..., "proposed_refund_pct": N}) within 8 s; without it
a neutral statement is sent, and the log says so.

Progress goes to stderr, with a readable line for each job, dispute, message, settlement,
mediation request and decision, and payout. With --json, stdout carries one JSON object per event
and line (started, verification, quote, job, offers, task_update, announcement, mediation,
review) for a program to read; without it stdout stays empty.`,
		Example: `  axp member serve --role seller --exchange http://127.0.0.1:8420 --skills skills.yaml --exec ./do-job
  axp member serve --role buyer --exchange http://127.0.0.1:8420 --dir ~/.config/axp/buyer`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Exchange = exchangeGiven(f)
			if u, source := f.ExchangeSource(); source == "axp login" {
				o.Remembered = u
			}
			return runServe(c.Context(), o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Role, "role", "", "seller or buyer (required)")
	fl.StringVar(&o.Name, "name", "", "the member's name, on first start (default: the name of --dir, so two agents differ)")
	fl.StringVar(&o.Listen, "listen", "127.0.0.1:0", "address the MCP server listens on (port 0 picks a free port)")
	fl.StringVar(&o.PublicURL, "public-url", "", "URL the exchange reaches this server at, when not the listen address (/mcp is appended)")
	c.Flags().StringVar(&o.Dir, "dir", "", "directory of the member's credentials (default $XDG_CONFIG_HOME/axp/member)")
	fl.StringVar(&o.SkillsFile, "skills", "", "seller: YAML or JSON file listing the skills")
	fl.StringVar(&o.Exec, "exec", "", "seller: command that does a job (job JSON on stdin, deliverable on stdout)")
	fl.DurationVar(&o.ExecTimeout, "exec-timeout", time.Hour, "seller: how long one job's command may run")
	fl.BoolVar(&o.Pull, "pull", false, "run without a server: poll the exchange for work")
	fl.DurationVar(&o.PollEvery, "poll-every", 2*time.Second, "with --pull: time between polls")
	fl.DurationVar(&o.PaymentRetry, "payment-retry", time.Minute, "seller: how often accepted jobs whose payment request failed (while suspended, say) are asked again")
	fl.StringVar(&o.PayoutAddress, "payout-address", "", "seller: the stablecoin address payouts go to (EVM; mixed case must be a valid EIP-55 checksum)")
	fl.BoolVar(&o.NoPaymentRequest, "no-payment-request", false, "seller: do not ask to be paid when a buyer accepts a job (by default payment is requested at once)")
	fl.StringVar(&o.StatementCmd, "statement-cmd", "", "command that writes the statement when a mediation asks for one (the request as JSON on stdin; the statement, or {\"statement\", \"proposed_refund_pct\"}, on stdout; default: a neutral statement)")
	fl.BoolVar(&o.JSON, "json", false, "print each event as a JSON object per line on stdout (started, verification, quote, job, ...)")
	fl.BoolVar(&o.AllowReplays, "allow-replays", false, "accept a signed call seen before (by default a replayed call is refused, so a captured do_task cannot run the job twice)")
	return c
}

func runServe(ctx context.Context, o *ServeOptions) error {
	if o.Role == "" {
		return &cmdutil.UsageError{Err: errors.New("--role is required: seller or buyer")}
	}
	if o.Role != protocol.RoleSeller && o.Role != protocol.RoleBuyer {
		return &cmdutil.UsageError{Err: fmt.Errorf("--role must be seller or buyer, not %q", o.Role)}
	}
	seller := o.Role == protocol.RoleSeller
	if !seller && (o.SkillsFile != "" || o.Exec != "" || o.PayoutAddress != "") {
		return &cmdutil.UsageError{Err: errors.New("--skills, --exec and --payout-address are for sellers")}
	}
	if o.PayoutAddress != "" && !protocol.IsEVMAddress(o.PayoutAddress) {
		return &cmdutil.UsageError{Err: fmt.Errorf("--payout-address %q is not an EVM address (0x and 40 hex digits; mixed case must be a valid EIP-55 checksum)", o.PayoutAddress)}
	}
	// Everything is checked before anything is written (the member's directory, a test wallet).
	if seller && o.Exec != "" {
		if err := checkExec(o.Exec); err != nil {
			return err
		}
	}
	var skills []protocol.Skill
	if o.SkillsFile != "" {
		var err error
		if skills, err = loadSkills(o.SkillsFile, false); err != nil {
			return err
		}
	}
	errw := o.IO.ErrOut
	if bad := unpriced(skills); len(bad) > 0 {
		fmt.Fprintf(errw, "warning: %s: quotes for it decline, which the conformance test counts as a failure (give min_price_usd and typical_eta_minutes, or instant_price_usd and instant_eta_minutes)\n",
			strings.Join(bad, "; "))
	}
	if seller && o.SkillsFile == "" {
		fmt.Fprintln(errw, "warning: no --skills: this seller matches no task (give a skills file)")
	}
	dir := resolveDir(o.Dir, o.Getenv)
	if _, err := os.Stat(memberkit.CredentialsPath(dir)); errors.Is(err, fs.ErrNotExist) && o.Exchange == "" {
		if o.Remembered == "" {
			return &cmdutil.UsageError{Err: fmt.Errorf("--exchange (or AXP_EXCHANGE) is required on first start (no credentials in %s yet)", dir)}
		}
		o.Exchange = o.Remembered
		fmt.Fprintf(o.IO.ErrOut, "using the exchange of `axp login`: %s\n", o.Exchange)
	}
	out := &lines{w: o.IO.Out, off: !o.JSON}
	if _, err := os.Stat(memberkit.CredentialsPath(dir)); seller && o.PayoutAddress == "" && errors.Is(err, fs.ErrNotExist) {
		// A new seller of an exchange in test mode is paid to a wallet of its own from the start.
		addr, err := testModeWallet(ctx, o.Exchange, dir, errw)
		if err != nil {
			return err
		}
		o.PayoutAddress = addr
	}
	log := slog.New(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: slog.LevelInfo}))

	party := &logParty{out: out, errw: errw, statementCmd: o.StatementCmd, env: environ(), exchange: o.Exchange,
		payout: func(ctx context.Context, taskID string) (axp.EarnedJob, bool) {
			creds, err := memberkit.LoadCredentials(memberkit.CredentialsPath(dir))
			if err != nil {
				return axp.EarnedJob{}, false
			}
			e, err := memberkit.NewClient(creds.Exchange, creds.MemberSecret).Earnings(ctx)
			if err != nil {
				return axp.EarnedJob{}, false
			}
			for _, j := range e.Jobs {
				if j.TaskID == taskID {
					return j, true
				}
			}
			return axp.EarnedJob{}, false
		}}
	a := &memberkit.Agent{
		Exchange: o.Exchange, Dir: dir, Listen: o.Listen, PublicURL: o.PublicURL, Pull: o.Pull,
		PollEvery: o.PollEvery, PaymentRetryEvery: o.PaymentRetry, Logger: log, Party: party, Buyer: party, AllowReplays: o.AllowReplays,
		PayoutAddress: o.PayoutAddress, NoPaymentRequest: o.NoPaymentRequest,
		Registration: axp.Registration{Roles: []string{o.Role}, Name: o.Name, Skills: skills},
	}
	if a.Registration.Name == "" {
		a.Registration.Name = defaultName(dir, o.Role)
	}
	if seller {
		var s memberkit.Seller = memberkit.Defaults{Skills: skills}
		if o.Exec != "" {
			s = &memberkit.Worker{Defaults: memberkit.Defaults{Skills: skills}, Work: execWork(o.Exec, environ(), errw),
				Timeout: o.ExecTimeout, Logger: log,
				OnDone: func(job *memberkit.Job, err error) {
					if err != nil {
						out.emit("job", map[string]any{"task_id": job.TaskID, "status": "failed", "error": err.Error(), "test": job.Test})
						fmt.Fprintf(errw, "job %s failed: %v\n", job.TaskID, err)
						return
					}
					contacts, creds := job.Removed()
					f := map[string]any{"task_id": job.TaskID, "status": "delivered", "test": job.Test}
					if len(contacts)+len(creds) > 0 {
						f["removed"] = append(append([]string(nil), contacts...), creds...)
					}
					out.emit("job", f)
					fmt.Fprintf(errw, "job %s delivered\n", job.TaskID)
					if line := removedLine(job.TaskID, contacts, creds); line != "" {
						fmt.Fprintln(errw, line)
					}
				}}
		} else {
			fmt.Fprintln(errw, "warning: no --exec: jobs are turned down")
		}
		a.Seller = &logSeller{Seller: s, out: out, errw: errw}
	}
	a.OnStart = func(s memberkit.Started) {
		if s.Registered {
			fmt.Fprintf(errw, "registered as %s with %s (credentials in %s)\n", s.MemberID, s.Exchange, s.Credentials)
		} else {
			fmt.Fprintf(errw, "member %s of %s (credentials in %s)\n", s.MemberID, s.Exchange, s.Credentials)
		}
		if s.MCPURL != "" {
			fmt.Fprintf(errw, "serving MCP at %s\n", s.MCPURL)
		} else {
			fmt.Fprintln(errw, "pull mode: polling the exchange for work")
		}
		f := map[string]any{"member_id": s.MemberID, "exchange": s.Exchange, "registered": s.Registered, "role": o.Role,
			"credentials": s.Credentials, "mode": "pull"}
		if s.MCPURL != "" {
			f["mcp_url"], f["listen"], f["mode"] = s.MCPURL, s.Listen, "push"
		}
		out.emit("started", f)
		if o.Ready != nil {
			o.Ready(s)
		}
	}
	a.OnVerify = func(v *axp.Verification, err error) {
		if err != nil {
			err = exchangeErr(err)
			fmt.Fprintf(errw, "verification could not run: %v\n", err)
			var e *axp.Error
			if errors.As(err, &e) && e.Hint != "" {
				fmt.Fprintf(errw, "hint: %s\n", e.Hint)
			}
			out.emit("verification", map[string]any{"passed": false, "error": err.Error()})
			return
		}
		fmt.Fprintln(errw, "verification:")
		printSteps(errw, v.Steps)
		if v.Passed {
			fmt.Fprintf(errw, "verified (%s)\n", v.State)
		} else {
			fmt.Fprintf(errw, "not verified (%s); fix the failed steps, then run `axp member verify`\n", v.State)
			for _, s := range verifyNext(v) {
				fmt.Fprintf(errw, "next: %s\n", s)
			}
		}
		out.emit("verification", map[string]any{"passed": v.Passed, "state": v.State, "mode": v.Mode, "steps": v.Steps})
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := a.Run(ctx); err != nil {
		return exchangeErr(err)
	}
	fmt.Fprintln(errw, "member stopped")
	return nil
}

// logSeller logs the seller's answers as JSON lines.
type logSeller struct {
	memberkit.Seller
	out  *lines
	errw io.Writer
}

func (s *logSeller) Quote(ctx context.Context, in protocol.QuoteInput) (protocol.QuoteAnswer, error) {
	q, err := s.Seller.Quote(ctx, in)
	f := map[string]any{"task_id": in.TaskID, "task_type": in.TaskType, "kind": q.Kind(), "answer": q, "test": in.Test}
	if err != nil {
		f["error"] = err.Error()
	}
	s.out.emit("quote", f)
	return q, err
}

func (s *logSeller) DoTask(ctx context.Context, job *memberkit.Job) (protocol.DoTaskOutput, error) {
	r, err := s.Seller.DoTask(ctx, job)
	f := map[string]any{"task_id": job.TaskID, "status": "accepted", "test": job.Test}
	switch {
	case err != nil:
		f["status"], f["error"] = "error", err.Error()
	case !r.Accepted:
		f["status"], f["reason"] = "declined", r.Reason
	}
	s.out.emit("job", f)
	if !job.Test {
		switch f["status"] {
		case "accepted":
			fmt.Fprintf(s.errw, "job %s (%s) accepted\n", job.TaskID, job.TaskType)
		case "declined":
			fmt.Fprintf(s.errw, "job %s (%s) declined: %s\n", job.TaskID, job.TaskType, r.Reason)
		}
	}
	return r, err
}

// logParty logs what the exchange pushes (offers, task updates, announcements, mediations and
// reviews) as JSON lines, and answers with memberkit's defaults.
type logParty struct {
	memberkit.Defaults
	out          *lines
	errw         io.Writer
	statementCmd string
	env          []string
	exchange     string
	// payout finds a job's payout (amount, transaction) once it is released.
	payout func(ctx context.Context, taskID string) (axp.EarnedJob, bool)
}

func (p *logParty) ReceiveOffers(ctx context.Context, in protocol.ReceiveOffersInput) error {
	p.out.emit("offers", map[string]any{"task_id": in.TaskID, "offers": in.Offers, "choose_url": in.ChooseURL, "test": in.Test})
	return nil
}

func (p *logParty) TaskUpdate(ctx context.Context, in protocol.TaskUpdateInput) error {
	f := map[string]any{"task_id": in.TaskID, "status": in.Status, "test": in.Test}
	if in.Event != "" {
		f["update"] = in.Event
	}
	if in.Deliverable != nil {
		f["deliverable"] = in.Deliverable
	}
	if in.AutoReleaseAt != nil {
		f["auto_release_at"] = *in.AutoReleaseAt
	}
	if len(in.Data) > 0 {
		f["data"] = in.Data
	}
	p.out.emit("task_update", f)
	line := updateLine(in)
	if in.Status == axp.TaskReleased && in.Event == "" && p.payout != nil {
		if j, ok := p.payout(ctx, in.TaskID); ok {
			line = payoutLine(in.TaskID, j)
		}
	}
	if line != "" && !in.Test {
		fmt.Fprintln(p.errw, line)
	}
	return nil
}

func (p *logParty) Announcement(ctx context.Context, in protocol.AnnouncementInput) error {
	p.out.emit("announcement", map[string]any{"announcement_id": in.AnnouncementID, "severity": in.Severity, "title": in.Title, "body": in.Body, "test": in.Test})
	if line := announcementLine(in, p.exchange); line != "" {
		fmt.Fprintln(p.errw, line)
	}
	return nil
}

func (p *logParty) Mediation(ctx context.Context, in protocol.MediationInput) (protocol.MediationOutput, error) {
	out, how, err := p.statement(ctx, in)
	f := map[string]any{"mediation_id": in.MediationID, "kind": in.Kind, "task_id": in.TaskID, "reason": in.Reason, "statement": out.Statement, "test": in.Test}
	if err != nil {
		f["error"] = err.Error()
		how = fmt.Sprintf("no statement sent: %v; write it with: axp task statement %s --body TEXT", err, in.TaskID)
	}
	p.out.emit("mediation", f)
	fmt.Fprintf(p.errw, "mediation %s on task %s (%s opened by the %s: %s): %s\n", in.MediationID, in.TaskID,
		strings.ReplaceAll(in.Kind, "_", " "), in.OpenedBy, oneLine(in.Reason), how)
	return out, err
}

func (p *logParty) Review(ctx context.Context, in protocol.ReviewInput) (protocol.ReviewOutput, error) {
	out, err := p.Defaults.Review(ctx, in)
	p.out.emit("review", map[string]any{"task_id": in.TaskID, "your_role": in.YourRole, "skipped": out.Skip, "test": in.Test})
	return out, err
}

// defaultName is the name of an agent started without --name: its directory's name, which differs
// from agent to agent (each needs a --dir of its own; the exchange refuses a name that reads like
// another member's), or "axp ROLE" when the directory has no usable name.
func defaultName(dir, role string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "axp " + role
	}
	name := strings.TrimSpace(filepath.Base(abs))
	if name == "" || name == "." || name == string(filepath.Separator) || len(name) > 60 {
		return "axp " + role
	}
	return name
}
