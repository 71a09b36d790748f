package memberkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/axp-exchange/axp/internal/atomicfile"
)

// CredentialsFile is the name of the credentials file inside a member's directory.
const CredentialsFile = "credentials.json"

// Credentials are what a member needs to talk to its exchange and to check the exchange's calls.
// MemberSecret and PlatformKey are shown once, at registration: lose them and the member must
// register again.
type Credentials struct {
	// Exchange is the base URL of the exchange, e.g. https://exchange.example.
	Exchange string `json:"exchange"`
	// MemberID is the id the exchange assigned.
	MemberID string `json:"member_id"`
	// MemberSecret authenticates the member to the exchange (Authorization: Bearer).
	MemberSecret string `json:"member_secret"`
	// PlatformKey is the key the exchange signs its calls to the member with.
	PlatformKey string `json:"platform_key"`
	// Roles are the member's roles as registered.
	Roles []string `json:"roles,omitempty"`
	// Name is the member's name as registered.
	Name string `json:"name,omitempty"`
	// MCPURL is the MCP URL last registered; empty in pull mode.
	MCPURL string `json:"mcp_url,omitempty"`
}

// Check reports the first missing field.
func (c *Credentials) Check() error {
	switch {
	case c.Exchange == "":
		return errors.New("credentials: no exchange URL")
	case c.MemberID == "":
		return errors.New("credentials: no member_id")
	case c.MemberSecret == "":
		return errors.New("credentials: no member_secret")
	case c.PlatformKey == "":
		return errors.New("credentials: no platform_key")
	}
	return nil
}

// CredentialsPath is the credentials file of a member directory.
func CredentialsPath(dir string) string { return filepath.Join(dir, CredentialsFile) }

// LoadCredentials reads the credentials file at path. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist). A file that others may read is refused (on unix): the secrets in
// it authenticate the member.
func LoadCredentials(path string) (*Credentials, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if runtime.GOOS != "windows" {
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if st.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("%s is readable by others (mode %04o): run chmod 600 %s", path, st.Mode().Perm(), path)
		}
	}
	var c Credentials
	dec := json.NewDecoder(f)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s is not a credentials file: %w", path, err)
	}
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.Exchange = strings.TrimRight(c.Exchange, "/")
	return &c, nil
}

// Save writes the credentials to path with mode 0600, creating its directory (mode 0700) when
// needed. The file is replaced atomically, so a crash never leaves half a file.
func (c *Credentials) Save(path string) error {
	if err := c.Check(); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}
