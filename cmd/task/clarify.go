package task

import (
	"context"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ClarifyOptions are the inputs of `axp task clarify`.
type ClarifyOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	buyerFlags
	TaskID  string
	Answers []string
}

// NewCmdClarify builds `axp task clarify`.
func NewCmdClarify(f *cmdutil.Factory, runF func(context.Context, *ClarifyOptions) error) *cobra.Command {
	o := &ClarifyOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "clarify TASK --answer QUESTION=ANSWER...",
		Short: "Answer sellers' questions; they are asked to quote again",
		Long: `Answer the clarifying questions sellers asked (see 'axp task view'). Each --answer is
QUESTION=ANSWER, where QUESTION is the question's text or the seller's id.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: CompleteTaskIDs(f),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if len(o.Answers) == 0 {
				return cmdutil.Usagef("give at least one --answer QUESTION=ANSWER")
			}
			answers := map[string]string{}
			for _, qa := range o.Answers {
				q, a, ok := strings.Cut(qa, "=")
				if !ok || strings.TrimSpace(q) == "" {
					return cmdutil.Usagef("--answer %q: use QUESTION=ANSWER", qa)
				}
				answers[strings.TrimSpace(q)] = a
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return act(c.Context(), o.F, o.IO, &o.Export, o.TaskID, o.Token, contract.AnswerClarifications, axp.ClarifyBody{TaskRef: taskRef(o.TaskID), Answers: answers},
				"✓ Answered the questions on %s (%s); sellers are asked to quote again")
		},
	}
	c.Flags().StringArrayVar(&o.Answers, "answer", nil, "an answer as `QUESTION=ANSWER` (repeat)")
	addTokenFlag(c, &o.buyerFlags)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}
