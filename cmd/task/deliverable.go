package task

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// DeliverableOptions are the inputs of `axp task deliverable`.
type DeliverableOptions struct {
	F  *cmdutil.Factory
	IO *cmdutil.IOStreams
	buyerFlags
	TaskID string
	Output string
}

// NewCmdDeliverable builds `axp task deliverable`.
func NewCmdDeliverable(f *cmdutil.Factory, runF func(context.Context, *DeliverableOptions) error) *cobra.Command {
	o := &DeliverableOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "deliverable TASK [-o FILE]",
		Short: "Download the deliverable, checking its SHA-256",
		Long: `Download the latest delivery of a task. Its SHA-256 is checked against the exchange's
X-Content-SHA256 header; on a mismatch nothing is written. Retrieving it is what allows 'axp task
accept'. Without -o the content goes to stdout (binary content only to a file or a pipe).`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return deliverableRun(c.Context(), o)
		},
	}
	c.Flags().StringVarP(&o.Output, "output", "o", "", "write to `file` (- for stdout)")
	addTokenFlag(c, &o.buyerFlags)
	return c
}

// Deliverable is a downloaded deliverable whose SHA-256 was checked.
type Deliverable struct {
	Body   []byte
	SHA256 string
}

// Download fetches a deliverable and checks it against X-Content-SHA256.
func Download(ctx context.Context, f *cmdutil.Factory, id, token string) (*Deliverable, error) {
	cl, err := f.BuyerClient(id, token)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(ctx, cl, contract.GetDeliverable, taskRef(id))
	if err != nil {
		return nil, cmdutil.WithHint(err, cmdutil.BuyerAuthHint, axp.CodeUnauthorized, axp.CodeForbidden)
	}
	sum := sha256.Sum256(resp.Body)
	got := hex.EncodeToString(sum[:])
	want := strings.ToLower(resp.Header.Get("X-Content-SHA256"))
	if want == "" {
		return nil, fmt.Errorf("the exchange sent no X-Content-SHA256 header: the deliverable cannot be checked")
	}
	if got != want {
		return nil, fmt.Errorf("the deliverable is damaged: its SHA-256 is %s but the exchange announced %s; nothing was written", got, want)
	}
	return &Deliverable{Body: resp.Body, SHA256: got}, nil
}

func deliverableRun(ctx context.Context, o *DeliverableOptions) error {
	d, err := Download(ctx, o.F, o.TaskID, o.Token)
	if err != nil {
		return err
	}
	if o.Output == "" || o.Output == "-" {
		if o.Output == "" && o.IO.StdoutTTY && !utf8.Valid(d.Body) {
			return cmdutil.Usagef("the deliverable is binary (%d bytes): write it to a file with -o FILE", len(d.Body))
		}
		if _, err := o.IO.Out.Write(d.Body); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "✓ %d bytes, sha256 %s verified\n", len(d.Body), d.SHA256)
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(o.Output), ".axp-deliverable-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(d.Body); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), o.Output); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Wrote %s (%d bytes, sha256 %s verified)\n", o.Output, len(d.Body), d.SHA256)
	return nil
}
