package task

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ReviewOptions are the inputs of `axp task review`.
type ReviewOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID     string
	Rating     int
	Quality    int
	Accuracy   int
	Timeliness int
	Comment    string
}

// NewCmdReview builds `axp task review`.
func NewCmdReview(f *cmdutil.Factory, runF func(context.Context, *ReviewOptions) error) *cobra.Command {
	o := &ReviewOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "review TASK --rating N [--comment TEXT]",
		Short: "Review the other party of a completed job",
		Long: `Review the other party of a completed job (accepted, released or refunded), once per side: the
buyer rates the seller's work, the seller rates a buyer member. Ratings are 1 to 5; quality,
accuracy and timeliness are optional; a comment is at most 1000 characters, contact details
removed.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if !c.Flags().Changed("rating") {
				return cmdutil.Usagef("--rating is required: 1 (poor) to 5 (excellent)")
			}
			for _, s := range []struct {
				flag string
				v    int
			}{{"rating", o.Rating}, {"quality", o.Quality}, {"accuracy", o.Accuracy}, {"timeliness", o.Timeliness}} {
				if c.Flags().Changed(s.flag) && (s.v < 1 || s.v > 5) {
					return cmdutil.Usagef("--%s %d: scores are 1 to 5", s.flag, s.v)
				}
			}
			if err := maxChars("--comment", o.Comment, 1000); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return reviewRun(c.Context(), o)
		},
	}
	c.Flags().IntVarP(&o.Rating, "rating", "r", 0, "overall rating, 1 to 5")
	c.Flags().IntVar(&o.Quality, "quality", 0, "quality, 1 to 5")
	c.Flags().IntVar(&o.Accuracy, "accuracy", 0, "accuracy, 1 to 5")
	c.Flags().IntVar(&o.Timeliness, "timeliness", 0, "timeliness, 1 to 5")
	c.Flags().StringVarP(&o.Comment, "comment", "c", "", "a comment (at most 1000 characters)")
	addPartyTokenFlag(c, f, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func reviewRun(ctx context.Context, o *ReviewOptions) error {
	cl, err := partyClient(o.F, o.TaskID, o.Token)
	if err != nil {
		return err
	}
	in := axp.ReviewBody{TaskRef: taskRef(o.TaskID), Rating: o.Rating, Quality: score(o.Quality), Accuracy: score(o.Accuracy),
		Timeliness: score(o.Timeliness), Comment: o.Comment}
	r, raw, err := partyCall(ctx, cl, contract.SubmitReview, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	whom := "the seller"
	if r.Role == axp.SideSeller {
		whom = "the buyer"
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Reviewed %s of %s: %d/5 (review %s)\n", whom, r.TaskID, r.Rating, r.ReviewID)
	if n := r.Screening.Note(); n != "" {
		fmt.Fprintf(o.IO.ErrOut, "! %s\n", n)
	}
	return nil
}

// ObjectOptions are the inputs of `axp task object`.
type ObjectOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID    string
	ReviewID  string
	Reason    string
	Statement string
}

// NewCmdObject builds `axp task object`.
func NewCmdObject(f *cmdutil.Factory, runF func(context.Context, *ObjectOptions) error) *cobra.Command {
	o := &ObjectOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "object TASK --reason TEXT [--statement TEXT] [--review ID]",
		Short: "Object to a review of you; the Mediator keeps or removes it",
		Long: `Object to the other party's review of you on a task (or the review named by --review). A
mediation of kind review_objection opens: the reviewer is asked for its statement and the Mediator
keeps or removes the review; either side may appeal to the operator. Only the reviewed member
objects, with the member secret saved by 'axp login'.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if strings.TrimSpace(o.Reason) == "" {
				return cmdutil.Usagef("--reason is required: why the review is unfair")
			}
			for _, t := range []struct{ flag, v string }{{"--reason", o.Reason}, {"--statement", o.Statement}} {
				if err := maxChars(t.flag, t.v, 4000); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return objectRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Reason, "reason", "", "why the review is unfair")
	c.Flags().StringVar(&o.Statement, "statement", "", "your statement for the Mediator (default: the reason)")
	c.Flags().StringVar(&o.ReviewID, "review", "", "the review `id` (default: the review of you on the task)")
	addPartyTokenFlag(c, f, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func objectRun(ctx context.Context, o *ObjectOptions) error {
	cl, err := partyClient(o.F, o.TaskID, o.Token)
	if err != nil {
		return err
	}
	if strings.HasPrefix(cl.Token, "bt_") {
		// A buyer token has no profile to be reviewed: an objection needs the member secret.
		if mc, merr := o.F.MemberClient(); merr == nil && mc != nil {
			cl = mc
		}
	}
	reviews := []string{o.ReviewID}
	if o.ReviewID == "" {
		tl, err := timeline(ctx, cl, o.TaskID)
		if err != nil {
			return err
		}
		reviews = nil
		for i := len(tl.Events) - 1; i >= 0; i-- {
			if id, _ := tl.Events[i].Detail["review_id"].(string); tl.Events[i].Kind == "review" && id != "" {
				reviews = append(reviews, id)
			}
		}
		if len(reviews) == 0 {
			return &axp.Error{Code: axp.CodeNotFound, Message: "task " + o.TaskID + " has no review", Hint: "reviews come once the job is complete"}
		}
	}
	var m *axp.Mediation
	var raw []byte
	for i, id := range reviews {
		m, raw, err = partyCall(ctx, cl, contract.ObjectToReview, axp.ObjectionBody{ID: id, Reason: o.Reason, Statement: o.Statement})
		var e *axp.Error
		// Without --review, the task's reviews are tried newest first: only the one of you is
		// accepted (the exchange refuses the others as forbidden).
		if errors.As(err, &e) && e.Code == axp.CodeForbidden && i < len(reviews)-1 {
			continue
		}
		break
	}
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Objected to review %s of %s: mediation %s asks the %s for its statement\n", m.ReviewID, m.TaskID, m.ID, axp.OtherSide(m.OpenedBy))
	fmt.Fprintf(o.IO.ErrOut, "Follow it with: axp task mediation %s\n", m.TaskID)
	return nil
}

// score is a score flag for the input: scores are 1 to 5, so 0 is unset and left out.
func score(v int) *int {
	if v == 0 {
		return nil
	}
	return &v
}
