// Package proof is `axp verify-proof`: it checks a saved proof of recorded data offline, with no
// exchange (docs/decisions.md, "Recorded data and proofs").
package proof

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// VerifyOptions are the inputs of `axp verify-proof`.
type VerifyOptions struct {
	IO    *cmdutil.IOStreams
	File  string
	Chain bool // also walk the exchange's chain
	Heads []string
	// Client reads the exchange's chain (set from the factory).
	Client func() *client.Client
}

// NewCmdVerify builds `axp verify-proof FILE`.
func NewCmdVerify(f *cmdutil.Factory, runF func(context.Context, *VerifyOptions) error) *cobra.Command {
	o := &VerifyOptions{IO: f.IO, Client: func() *client.Client { return f.Client("") }}
	cmd := &cobra.Command{
		Use:   "verify-proof FILE",
		Short: "Check a saved proof of recorded data offline (exit 0: it holds, 1: it does not)",
		Long: "Reads a proof saved from /paid/news/proof, /paid/market/proof or /paid/trackrecord/verify (\"-\" reads stdin) and\n" +
			"recomputes it: the item's leaf hash, the path to its batch's Merkle root and the chain entry's link.\n" +
			"To hold the exchange to its history, add --chain: the exchange's whole chain (GET /proofs/chain,\n" +
			"free) is read and every link recomputed, and the proof's entry and head, and every head you copied\n" +
			"earlier from /proofs/latest (--head FILE, repeatable), must be part of it with the same links.\n" +
			"FILE may itself be a copied head when --chain is given.",
		Example: "  axp verify-proof proof.json\n" +
			"  axp verify-proof proof.json --chain --head head-2026-10-01.json\n" +
			"  curl -s $AXP/proofs/latest > head.json   # later: axp verify-proof head.json --chain",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.File = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return verifyRun(c.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.Chain, "chain", false, "also read the exchange's chain and check the proof's entry and head are part of it")
	cmd.Flags().StringArrayVar(&o.Heads, "head", nil, "a head copied earlier from /proofs/latest that must be in the chain (with --chain)")
	return cmd
}

func verifyRun(ctx context.Context, o *VerifyOptions) error {
	if len(o.Heads) > 0 && !o.Chain {
		return cmdutil.Usagef("--head needs --chain: a copied head is checked against the exchange's chain")
	}
	raw, err := cmdutil.ReadFile(o.IO.In, o.File)
	if err != nil {
		return err
	}
	var walk axp.ChainWalk
	if head, ok := parseHead(raw); ok && o.Chain {
		walk.Pin(*head)
	} else {
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
		walk.Pin(p.Entry)
		walk.Pin(p.Head)
	}
	if !o.Chain {
		return nil
	}
	for _, f := range o.Heads {
		raw, err := cmdutil.ReadFile(o.IO.In, f)
		if err != nil {
			return err
		}
		head, ok := parseHead(raw)
		if !ok {
			return fmt.Errorf("%s is not a head saved from /proofs/latest", f)
		}
		walk.Pin(*head)
	}
	c := o.Client()
	for after := int64(0); ; {
		page, _, err := client.Call(ctx, c, contract.ListProofChain, axp.ProofChainQuery{After: after, Limit: 1000})
		if err != nil {
			return fmt.Errorf("read the chain from %s: %w", c.BaseURL, err)
		}
		if err := walk.Add(page.Entries); err != nil {
			return fmt.Errorf("the chain of %s does NOT hold: %w", c.BaseURL, err)
		}
		if page.Next == 0 || len(page.Entries) == 0 {
			break
		}
		after = page.Next
	}
	n, err := walk.Done()
	if err != nil {
		return fmt.Errorf("the chain of %s does NOT hold: %w", c.BaseURL, err)
	}
	fmt.Fprintf(o.IO.Out, "chain holds: %d entries of %s recompute, and the pinned entries are part of it\n", n, c.BaseURL)
	return nil
}

// parseHead reads a head saved from /proofs/latest (or a bare chain entry).
func parseHead(raw []byte) (*axp.ChainEntry, bool) {
	var h axp.ProofHead
	if err := json.Unmarshal(raw, &h); err == nil && h.Head != nil && h.Head.Seq > 0 && h.Head.Link != "" {
		return h.Head, true
	}
	var e axp.ChainEntry
	if err := json.Unmarshal(raw, &e); err == nil && e.Seq > 0 && e.Link != "" && e.Root != "" {
		return &e, true
	}
	return nil, false
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
