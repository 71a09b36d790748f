package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/internal/atomicfile"
	"github.com/axp-exchange/axp/memberkit"
	"github.com/spf13/cobra"
)

// CredentialsFile is the name of the credentials file in the config dir.
const CredentialsFile = "credentials.json"

// Credentials are the secrets axp keeps for the user, per exchange URL. The file is written 0600
// in a 0700 directory; every secret in it works on its own, so it must stay private.
type Credentials struct {
	Version int `json:"version"`
	// Current is the exchange of the last `axp login`: commands use it when neither --exchange
	// nor AXP_EXCHANGE names one.
	Current   string                          `json:"current,omitempty"`
	Exchanges map[string]*ExchangeCredentials `json:"exchanges"`
}

// ExchangeCredentials are the secrets kept for one exchange.
type ExchangeCredentials struct {
	// AdminToken is the operator's token (AXP_ADMIN_TOKEN overrides it).
	AdminToken string `json:"admin_token,omitempty"`
	// MemberSecret is a member's secret (ss_<member id>_<hex>) and MemberID its member.
	MemberSecret string `json:"member_secret,omitempty"`
	MemberID     string `json:"member_id,omitempty"`
	// BuyerTokens are the buyer tokens of tasks posted from here, by task id.
	BuyerTokens map[string]string `json:"buyer_tokens,omitempty"`
}

// ConfigDir is axp's configuration directory: $XDG_CONFIG_HOME/axp, else $HOME/.config/axp. It is
// "" when neither variable is set (then nothing is read or saved).
func (f *Factory) ConfigDir() string {
	if x := f.getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "axp")
	}
	if h := f.getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "axp")
	}
	return ""
}

// CredentialsPath is the path of the credentials file ("" when there is no config dir).
func (f *Factory) CredentialsPath() string {
	dir := f.ConfigDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, CredentialsFile)
}

// LoadCredentials reads the credentials file; a missing file is empty credentials.
func (f *Factory) LoadCredentials() (*Credentials, error) {
	path := f.CredentialsPath()
	c := &Credentials{Version: 1, Exchanges: map[string]*ExchangeCredentials{}}
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read credentials: %w", err)
	}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): move it away and log in again", path, err)
	}
	if c.Exchanges == nil {
		c.Exchanges = map[string]*ExchangeCredentials{}
	}
	return c, nil
}

// ExchangeCredentials are the saved credentials of the current exchange (never nil).
func (f *Factory) ExchangeCredentials() (*ExchangeCredentials, error) {
	c, err := f.LoadCredentials()
	if err != nil {
		return nil, err
	}
	if e := c.Exchanges[f.ExchangeURL()]; e != nil {
		return e, nil
	}
	return &ExchangeCredentials{}, nil
}

// UpdateCredentials changes the current exchange's credentials under a lock on the file, so two
// axp processes saving at once both keep their change.
func (f *Factory) UpdateCredentials(change func(*ExchangeCredentials) error) error {
	key := f.ExchangeURL()
	return f.updateFile(func(c *Credentials) error {
		e := c.Exchanges[key]
		if e == nil {
			e = &ExchangeCredentials{}
		}
		if err := change(e); err != nil {
			return err
		}
		if e.AdminToken == "" && e.MemberSecret == "" && len(e.BuyerTokens) == 0 {
			delete(c.Exchanges, key)
		} else {
			c.Exchanges[key] = e
		}
		return nil
	})
}

// updateFile changes the credentials file under a lock on it.
func (f *Factory) updateFile(change func(*Credentials) error) error {
	path := f.CredentialsPath()
	if path == "" {
		return errors.New("nowhere to save credentials: set HOME or XDG_CONFIG_HOME")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	c, err := f.LoadCredentials()
	if err != nil {
		return err
	}
	if err := change(c); err != nil {
		return err
	}
	c.Version = 1
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

// Remember makes the current exchange the one later commands use when neither --exchange nor
// AXP_EXCHANGE names one (`axp login` calls it).
func (f *Factory) Remember() error {
	url := f.ExchangeURL()
	return f.updateFile(func(c *Credentials) error {
		c.Current = url
		return nil
	})
}

// SaveBuyerToken keeps the buyer token of a task posted on the current exchange.
func (f *Factory) SaveBuyerToken(taskID, token string) error {
	return f.UpdateCredentials(func(e *ExchangeCredentials) error {
		if e.BuyerTokens == nil {
			e.BuyerTokens = map[string]string{}
		}
		e.BuyerTokens[taskID] = token
		return nil
	})
}

// TaskIDs lists the tasks with a saved buyer token, sorted.
func (e *ExchangeCredentials) TaskIDs() []string {
	ids := make([]string, 0, len(e.BuyerTokens))
	for id := range e.BuyerTokens {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// AdminToken is the operator's token: $AXP_ADMIN_TOKEN, else the one saved by `axp login`.
func (f *Factory) AdminToken() (string, error) {
	if t := f.getenv("AXP_ADMIN_TOKEN"); t != "" {
		return t, nil
	}
	e, err := f.ExchangeCredentials()
	if err != nil {
		return "", err
	}
	return e.AdminToken, nil
}

// AdminClient is a client with the admin token, or an unauthorized error that says how to log in.
func (f *Factory) AdminClient() (*client.Client, error) {
	t, err := f.AdminToken()
	if err != nil {
		return nil, err
	}
	if t == "" {
		return nil, &axp.Error{Code: axp.CodeUnauthorized,
			Message: "no admin token for " + f.ExchangeURL(),
			Hint:    "run `axp login` and paste the admin token `axp serve` printed at its first start, or set AXP_ADMIN_TOKEN"}
	}
	return f.Client(t), nil
}

// AdminAuthHint is the hint of an admin call the exchange refused.
const AdminAuthHint = "the admin token was refused: run `axp login` with the exchange's current admin token, or set AXP_ADMIN_TOKEN"

// AdminRefused is err of an admin call as the operator reads it: a token the exchange does not
// know (unauthorized) is "not a valid admin token" rather than the exchange's "needs the admin
// token", which reads as if none was given; both codes get AdminAuthHint.
func (f *Factory) AdminRefused(err error) error {
	var e *axp.Error
	if errors.As(err, &e) && e.Code == axp.CodeUnauthorized {
		c := *e
		c.Message = "not a valid admin token for " + f.ExchangeURL()
		c.Hint = AdminAuthHint
		return &c
	}
	return WithHint(err, AdminAuthHint, axp.CodeForbidden)
}

// MemberClient is a client with a member secret, or nil when none is found. It looks, in order,
// in --dir (the directory of a `axp member serve` run: it must hold credentials), in the `axp
// login` store, then for a `axp member serve` run of this exchange in the working directory (DIR
// of `--dir .` or `--dir member`) and in its default directory ($XDG_CONFIG_HOME/axp/member), so
// one agent needs no second login.
func (f *Factory) MemberClient() (*client.Client, error) {
	m, err := f.FindMember()
	if err != nil || m == nil {
		return nil, err
	}
	return f.Client(m.Secret), nil
}

// MemberFound is the member a member-side command acts as and where its secret was found.
type MemberFound struct {
	Secret   string
	MemberID string
	// Name is the member's name when its credentials file keeps it.
	Name string
	// From says where the secret was found: the credentials file of --dir or of a `axp member
	// serve` run, or "axp login".
	From string
}

// String names the member and where its credentials were found, for a screen.
func (m *MemberFound) String() string {
	who := "member " + m.MemberID
	if m.MemberID == "" {
		who = "the member"
	}
	if m.Name != "" {
		who = "member " + m.Name + " (" + m.MemberID + ")"
	}
	return who + " from " + m.From
}

// FindMember finds the member a member-side command acts as, in the order MemberClient looks;
// nil when there is none.
func (f *Factory) FindMember() (*MemberFound, error) {
	if f.MemberDir != "" {
		c, err := f.DirCredentials(f.MemberDir)
		if err != nil {
			return nil, err
		}
		return &MemberFound{Secret: c.MemberSecret, MemberID: c.MemberID, Name: c.Name,
			From: memberkit.CredentialsPath(f.MemberDir) + " (--dir)"}, nil
	}
	e, err := f.ExchangeCredentials()
	if err != nil {
		return nil, err
	}
	if e.MemberSecret != "" {
		return &MemberFound{Secret: e.MemberSecret, MemberID: e.MemberID, From: "axp login"}, nil
	}
	if c, dir := f.runCredentials(); c != nil {
		return &MemberFound{Secret: c.MemberSecret, MemberID: c.MemberID, Name: c.Name,
			From: f.shortPath(memberkit.CredentialsPath(dir)) + " (a member serve run)"}, nil
	}
	return nil, nil
}

// shortPath is path relative to the working directory when it is under it ("./member/...").
func (f *Factory) shortPath(path string) string {
	wd := f.WorkDir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	if rel, err := filepath.Rel(wd, path); err == nil && wd != "" && filepath.IsLocal(rel) {
		return "." + string(filepath.Separator) + rel
	}
	return path
}

// DirCredentials reads the credentials `axp member serve --dir DIR` keeps in dir, with a hint
// when there are none.
func (f *Factory) DirCredentials(dir string) (*memberkit.Credentials, error) {
	path := memberkit.CredentialsPath(dir)
	c, err := memberkit.LoadCredentials(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &axp.Error{Code: axp.CodeNotFound, Message: "no member credentials in " + dir,
			Hint: "point --dir at the directory of `axp member serve --dir DIR` (it keeps DIR/credentials.json after its first start)"}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// RunCredentials are the credentials of a `axp member serve` run of the current exchange in the
// working directory (./credentials.json, ./member/credentials.json) or in the default member
// directory; nil when there is none.
func (f *Factory) RunCredentials() *memberkit.Credentials {
	c, _ := f.runCredentials()
	return c
}

// runCredentials is RunCredentials and the directory they were found in.
func (f *Factory) runCredentials() (*memberkit.Credentials, string) {
	wd := f.WorkDir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	var dirs []string
	if wd != "" {
		dirs = append(dirs, wd, filepath.Join(wd, "member"))
	}
	if cd := f.ConfigDir(); cd != "" {
		dirs = append(dirs, filepath.Join(cd, "member"))
	}
	for _, dir := range dirs {
		c, err := memberkit.LoadCredentials(memberkit.CredentialsPath(dir))
		if err == nil && c.Check() == nil && NormalizeExchange(c.Exchange) == NormalizeExchange(f.ExchangeURL()) {
			return c, dir
		}
	}
	return nil, ""
}

// AddMemberDirFlag adds --dir, the directory of a `axp member serve` run whose member a
// member-side command acts as.
func AddMemberDirFlag(c *cobra.Command, f *Factory) {
	c.Flags().StringVar(&f.MemberDir, "dir", "", "act as the member `axp member serve --dir DIR` keeps in DIR (default: the `axp login` member, else a member run in the current directory)")
}

// MemberAuthHint names the ways a member-side command finds its member.
const MemberAuthHint = "pass --dir DIR with the directory of your `axp member serve`, save it with `axp login --dir DIR`, or `axp login --with-token` with the member secret"

// BuyerClient is a client that acts as the buyer of a task: with token when given, else the buyer
// token saved when the task was posted, else the saved member secret (a buyer member's tasks).
func (f *Factory) BuyerClient(taskID, token string) (*client.Client, error) {
	if token != "" {
		return f.Client(token), nil
	}
	e, err := f.ExchangeCredentials()
	if err != nil {
		return nil, err
	}
	if t := e.BuyerTokens[taskID]; t != "" {
		return f.Client(t), nil
	}
	if e.MemberSecret != "" {
		return f.Client(e.MemberSecret), nil
	}
	return nil, &axp.Error{Code: axp.CodeUnauthorized,
		Message: fmt.Sprintf("no buyer token for task %s is saved here, or %s has no such task", taskID, f.ExchangeURL()),
		Hint:    "tasks posted with `axp task create` are remembered; otherwise pass --token with the task's buyer_token, or `axp login` with the buyer member's secret"}
}

// BuyerAuthHint is the hint of a buyer call the exchange refused.
const BuyerAuthHint = "the saved credentials do not open this task: pass --token with its buyer_token, or `axp login` as the member who posted it"
