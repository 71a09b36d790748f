package memberkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/protocol"
)

// Agent runs a member from start to finish: it listens (push mode), registers on first start and
// saves the credentials in Dir (later starts reuse them, updating the registered mcp_url, roles
// and skills when they changed), verifies, heartbeats, and serves MCP (or polls, in pull mode)
// until the context ends.
type Agent struct {
	// Exchange is the exchange's base URL. Required on first start; later it must match the one
	// in the saved credentials (empty: use them).
	Exchange string
	// Dir holds the credentials file (created with mode 0700, the file 0600). Required.
	Dir string
	// Registration is what is registered on first start: roles and name are required; skills
	// for sellers. MCPURL is filled in by the agent.
	Registration axp.Registration
	// Listen is the address the MCP server listens on (default 127.0.0.1:0, a free port).
	Listen string
	// PublicURL is the URL the exchange reaches the MCP endpoint at, when it is not the listen
	// address (a tunnel or reverse proxy). "/mcp" is appended unless it ends with it.
	PublicURL string
	// Pull runs without a server: the member polls (Runner).
	Pull bool
	// Seller, Buyer and Party are the handlers (see Options).
	Seller Seller
	Buyer  Buyer
	Party  Party
	// HeartbeatEvery is the time between heartbeats (0: 1 h).
	HeartbeatEvery time.Duration
	// PaymentRetryEvery is how often, in push mode, the payment of an accepted job whose request
	// failed (a suspended seller's, say) is asked again (0: 1 min). In pull mode each poll asks.
	PaymentRetryEvery time.Duration
	// PollEvery is the pull-mode poll interval (0: 2 s).
	PollEvery time.Duration
	// Logger logs the agent's progress and problems (nil: slog.Default()).
	Logger *slog.Logger
	// AllowReplays turns off the refusal of replayed calls (see Options.AllowReplays).
	AllowReplays bool
	// PayoutAddress, when set, is the seller's stablecoin address (EVM, EIP-55 checked by the
	// exchange): registered on first start, updated on later starts when it differs.
	PayoutAddress string
	// NoPaymentRequest turns off asking to be paid when a job is accepted (see Options).
	NoPaymentRequest bool

	// OnStart, when set, is told once the member is registered and (push mode) listening.
	OnStart func(Started)
	// OnVerify, when set, is given the result of the verification at start.
	OnVerify func(v *axp.Verification, err error)
}

// Started describes a running member.
type Started struct {
	MemberID string
	Exchange string
	// MCPURL is the URL registered with the exchange; empty in pull mode.
	MCPURL string
	// Listen is the address the server listens on; empty in pull mode.
	Listen string
	// Registered says the member registered just now (first start).
	Registered bool
	// Credentials is the path of the credentials file.
	Credentials string
}

// Run runs the member until ctx ends. Registration and credential problems end it at once with
// an error; a failed verification is reported (OnVerify) and the member keeps serving, so that it
// can be fixed and verified again.
func (a *Agent) Run(ctx context.Context) error {
	log := a.Logger
	if log == nil {
		log = slog.Default()
	}
	if a.Dir == "" {
		return errors.New("memberkit: Agent.Dir is required (where the credentials are kept)")
	}
	path := CredentialsPath(a.Dir)
	creds, err := LoadCredentials(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		creds = nil
		if a.Exchange == "" {
			return fmt.Errorf("no credentials in %s yet: give the exchange URL to register", a.Dir)
		}
	case err != nil:
		return err
	case a.Exchange != "" && strings.TrimRight(a.Exchange, "/") != creds.Exchange:
		return fmt.Errorf("the credentials in %s belong to the exchange at %s, not %s: use another directory for another exchange",
			a.Dir, creds.Exchange, a.Exchange)
	case len(creds.Roles) > 0 && len(a.Registration.Roles) > 0 && !sameSet(creds.Roles, a.Registration.Roles):
		return fmt.Errorf("the credentials in %s are those of a %s member (%s), not a %s: use another directory for another member",
			a.Dir, strings.Join(creds.Roles, "+"), creds.MemberID, strings.Join(a.Registration.Roles, "+"))
	}
	exchange := strings.TrimRight(a.Exchange, "/")
	roles := a.Registration.Roles
	if creds != nil {
		exchange = creds.Exchange
		if len(roles) == 0 {
			roles = creds.Roles
		}
	}
	opts := Options{Roles: roles, Seller: a.Seller, Buyer: a.Buyer, Party: a.Party, Logger: log, AllowReplays: a.AllowReplays,
		NoPaymentRequest: a.NoPaymentRequest}
	if _, err := newHandlers(opts); err != nil {
		return err
	}

	var ln net.Listener
	mcpURL := ""
	if !a.Pull {
		listen := a.Listen
		if listen == "" {
			listen = "127.0.0.1:0"
		}
		ln, err = net.Listen("tcp", listen)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", listen, err)
		}
		defer ln.Close()
		mcpURL, err = publicURL(a.PublicURL, ln.Addr())
		if err != nil {
			return err
		}
	}

	started := Started{Exchange: exchange, MCPURL: mcpURL, Credentials: path}
	if ln != nil {
		started.Listen = ln.Addr().String()
	}
	if creds == nil {
		reg := a.Registration
		reg.MCPURL = mcpURL
		if a.PayoutAddress != "" {
			reg.PayoutAddress = a.PayoutAddress
		} else if slices.Contains(roles, protocol.RoleSeller) {
			// A new seller of an exchange in test mode is paid to a wallet of its own from the start.
			if p, err := NewClient(exchange, "").Pricing(ctx); err == nil && p.TestMode {
				addr, key, err := TestWallet(a.Dir)
				if err != nil {
					return err
				}
				reg.PayoutAddress = addr
				log.Info("memberkit: test mode (money here is not real): payouts go to the wallet in "+key, "address", addr)
			}
		}
		out, err := NewClient(exchange, "").Register(ctx, reg)
		if err != nil {
			return fmt.Errorf("register with %s: %w", exchange, err)
		}
		creds = &Credentials{Exchange: exchange, MemberID: out.MemberID, MemberSecret: out.MemberSecret,
			PlatformKey: out.PlatformKey, Roles: out.Member.Roles, Name: out.Member.Name, MCPURL: mcpURL}
		if err := creds.Save(path); err != nil {
			return fmt.Errorf("registered as %s but the credentials could not be saved (register again): %w", out.MemberID, err)
		}
		started.Registered = true
		if reg.PayoutAddress == "" && slices.Contains(out.Member.Roles, protocol.RoleSeller) {
			log.Warn("memberkit: this seller has no payout address: payouts are held until one is set (Agent.PayoutAddress, or axp member payout-address ADDR)")
		}
	} else if err := a.sync(ctx, creds, mcpURL); err != nil {
		return err
	} else if err := creds.Save(path); err != nil {
		return err
	}
	started.MemberID = creds.MemberID
	client := NewClient(exchange, creds.MemberSecret)
	if len(a.Registration.Skills) > 0 {
		// A typo in a task type matches no task: say so now rather than after a silent day.
		if unknown, err := client.UnknownTaskTypes(ctx, a.Registration.Skills); err == nil {
			for _, u := range unknown {
				log.Warn("memberkit: " + u.String())
			}
		}
	}

	if a.Pull {
		r, err := NewRunner(client, opts)
		if err != nil {
			return err
		}
		r.PollEvery, r.HeartbeatEvery, r.OnVerify = a.PollEvery, a.HeartbeatEvery, a.OnVerify
		if a.OnStart != nil {
			a.OnStart(started)
		}
		return r.Run(ctx)
	}

	srv, err := NewServer(opts)
	if err != nil {
		return err
	}
	srv.SetCredentials(creds)
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	if a.OnStart != nil {
		a.OnStart(started)
	}
	v, err := client.Verify(ctx)
	if a.OnVerify != nil {
		a.OnVerify(v, err)
	}

	every := a.HeartbeatEvery
	if every <= 0 {
		every = time.Hour
	}
	beat := time.NewTicker(every)
	defer beat.Stop()
	retryEvery := a.PaymentRetryEvery
	if retryEvery <= 0 {
		retryEvery = time.Minute
	}
	retry := time.NewTicker(retryEvery)
	defer retry.Stop()
	for {
		select {
		case err := <-serveErr:
			return fmt.Errorf("the MCP server stopped: %w", err)
		case <-retry.C:
			srv.h.retryPayments(ctx, client)
		case <-beat.C:
			if _, err := client.Heartbeat(ctx); err != nil && ctx.Err() == nil {
				log.Warn("memberkit: heartbeat failed", "err", err)
			}
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			hs.Shutdown(sctx)
			srv.Shutdown(sctx)
			return nil
		}
	}
}

// sync brings the registered profile in line with this start: the MCP URL (a new port, or pull
// mode) and the skills. Roles never change here: a member of other roles is another member.
func (a *Agent) sync(ctx context.Context, creds *Credentials, mcpURL string) error {
	c := NewClient(creds.Exchange, creds.MemberSecret)
	p, err := c.Profile(ctx)
	if err != nil {
		if IsCode(err, protocol.CodeUnauthorized) {
			return fmt.Errorf("the exchange does not know the member %s any more: %w (remove %s to register again)",
				creds.MemberID, err, CredentialsPath(a.Dir))
		}
		return fmt.Errorf("read the profile from %s: %w", creds.Exchange, err)
	}
	if a.PayoutAddress != "" && p.PayoutAddress != a.PayoutAddress {
		u := axp.ProfileUpdate{PayoutAddress: protocol.Nullable[string]{Set: true, Value: a.PayoutAddress}}
		if p, err = c.UpdateProfile(ctx, u); err != nil {
			return fmt.Errorf("set the payout address: %w", err)
		}
	}
	if p.PayoutAddress == "" && slices.Contains(p.Roles, protocol.RoleSeller) {
		a.logger().Warn("memberkit: this seller has no payout address: payouts are held until one is set (Agent.PayoutAddress, or axp member payout-address ADDR)")
	}
	if p.MCPURL != mcpURL {
		var u axp.ProfileUpdate
		if mcpURL == "" {
			u.MCPURL = protocol.Nullable[string]{Set: true, Null: true}
		} else {
			u.MCPURL = protocol.Nullable[string]{Set: true, Value: mcpURL}
		}
		if _, err := c.UpdateProfile(ctx, u); err != nil {
			return fmt.Errorf("update the profile: %w", err)
		}
	}
	if a.Registration.Skills != nil && slices.Contains(a.Registration.Roles, protocol.RoleSeller) && !sameSkills(a.Registration.Skills, p.Skills) {
		if _, err := c.SetSkills(ctx, a.Registration.Skills); err != nil {
			return fmt.Errorf("update the skills: %w", err)
		}
	}
	creds.MCPURL = mcpURL
	if len(creds.Roles) == 0 {
		creds.Roles = p.Roles
	}
	return nil
}

func (a *Agent) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.Default()
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func sameSkills(a, b []protocol.Skill) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// publicURL is the MCP URL to register: the public URL given, or the listen address (an
// unspecified host becomes 127.0.0.1).
func publicURL(public string, addr net.Addr) (string, error) {
	if public != "" {
		u, err := url.Parse(public)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("the public URL %q is not an http or https URL", public)
		}
		s := strings.TrimRight(public, "/")
		if !strings.HasSuffix(s, Path) {
			s += Path
		}
		return s, nil
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "", fmt.Errorf("cannot make a URL of the listen address %s: give the public URL", addr)
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(tcp.Port)) + Path, nil
}
