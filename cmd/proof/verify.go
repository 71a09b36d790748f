// Package proof is `axp verify-proof`: it checks a saved proof of recorded data offline, with no
// exchange (docs/decisions.md, "Recorded data and proofs").
package proof

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/spf13/cobra"
)

// VerifyOptions are the inputs of `axp verify-proof`.
type VerifyOptions struct {
	IO   *cmdutil.IOStreams
	File string
}

// NewCmdVerify builds `axp verify-proof FILE`.
func NewCmdVerify(f *cmdutil.Factory, runF func(context.Context, *VerifyOptions) error) *cobra.Command {
	o := &VerifyOptions{IO: f.IO}
	return &cobra.Command{
		Use:   "verify-proof FILE",
		Short: "Check a saved proof of recorded data offline (exit 0: it holds, 1: it does not)",
		Long: "Reads a proof saved from /paid/news/proof, /paid/market/proof or /paid/trackrecord/verify (\"-\" reads stdin) and\n" +
			"recomputes it: the item's leaf hash, the path to its batch's Merkle root and the chain entry's link.\n" +
			"To hold the exchange to its history, compare the entry's link with the chain you copied from\n" +
			"/proofs/latest and /proofs/chain.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.File = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return verifyRun(o)
		},
	}
}

func verifyRun(o *VerifyOptions) error {
	var raw []byte
	var err error
	if o.File == "-" {
		var b bytes.Buffer
		_, err = b.ReadFrom(o.IO.In)
		raw = b.Bytes()
	} else {
		raw, err = os.ReadFile(o.File)
	}
	if err != nil {
		return err
	}
	p, err := parse(raw)
	if err != nil {
		return fmt.Errorf("%s is not a proof: %w", o.File, err)
	}
	if err := p.Verify(); err != nil {
		return fmt.Errorf("the proof of %s does NOT hold: %w", p.ID, err)
	}
	fmt.Fprintf(o.IO.Out, "proof holds: %s is item %d of chain entry %d (%s, recorded %s)\n", p.ID, p.Index, p.Entry.Seq,
		p.Entry.Kind, p.Entry.RecordedAt.Format(time.RFC3339Nano))
	fmt.Fprintf(o.IO.Out, "entry link %s\nhead  seq %d link %s\n", p.Entry.Link, p.Head.Seq, p.Head.Link)
	return nil
}

// parse reads a proof, or the answer of /paid/trackrecord/verify that holds one.
func parse(raw []byte) (*axp.Proof, error) {
	var wrapped struct {
		Proof *axp.Proof `json:"proof"`
	}
	if err := json.Unmarshal(raw, &wrapped); err == nil && wrapped.Proof != nil {
		return wrapped.Proof, nil
	}
	var p axp.Proof
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	if p.V == 0 || len(p.Item) == 0 {
		return nil, errors.New("it has no v and item")
	}
	return &p, nil
}
