package task

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

// ListOptions are the inputs of `axp task list`.
type ListOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Status string
	Now    func() time.Time
}

// NewCmdList builds `axp task list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	o := &ListOptions{F: f, IO: f.IO, Now: time.Now}
	c := &cobra.Command{
		Use:   "list",
		Short: "List your tasks on the exchange",
		Long: `List the tasks whose buyer tokens are saved here, and, when logged in as a buyer member,
the tasks that member posted. --json prints {"tasks": [...]}, each task as GET /api/tasks/{id}
answers it.`,
		Aliases: []string{"ls"},
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if o.Status != "" {
				if err := oneOf("--status", o.Status, append([]string{""}, axp.TaskStatuses...)...); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return listRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Status, "status", "", "only tasks of this status: "+strings.Join(axp.TaskStatuses, ", "))
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// listed is a task as read: its JSON as the exchange answered and its decoded form.
type listed struct {
	raw  json.RawMessage
	task axp.Task
}

// ListTasks reads every task the saved credentials open: saved buyer tokens and the member's
// own tasks. Tasks that cannot be read are reported to warn and skipped; an unreachable exchange
// is an error.
func ListTasks(ctx context.Context, f *cmdutil.Factory, warn func(id string, err error)) ([]listed, error) {
	creds, err := f.ExchangeCredentials()
	if err != nil {
		return nil, err
	}
	byID := map[string]listed{}
	for _, id := range creds.TaskIDs() {
		t, raw, err := client.Call(ctx, f.Client(creds.BuyerTokens[id]), contract.GetTask, axp.TaskQuery{TaskRef: taskRef(id)})
		if err != nil {
			var un *client.UnreachableError
			if errors.As(err, &un) {
				return nil, err
			}
			warn(id, err)
			continue
		}
		byID[id] = listed{raw: compact(raw), task: *t}
	}
	if creds.MemberSecret != "" {
		// Each task keeps its JSON as the exchange answered it; the member's tasks come a page at
		// a time, newest first.
		q := axp.MyTasksQuery{Limit: axp.MyTasksPageMax}
		for {
			var list struct {
				Tasks      []json.RawMessage `json:"tasks"`
				NextCursor string            `json:"next_cursor"`
			}
			if _, raw, err := client.Call(ctx, f.Client(creds.MemberSecret), contract.ListMyTasks, q); err != nil {
				if client.IsCode(err, axp.CodeUnauthorized) || client.IsCode(err, axp.CodeForbidden) {
					warn("", cmdutil.WithHint(err, "the saved member secret was refused: `axp login` again"))
					break
				}
				return nil, err
			} else if err := json.Unmarshal(raw, &list); err != nil {
				return nil, fmt.Errorf("decode the list_my_tasks answer: %w", err)
			}
			for _, r := range list.Tasks {
				var t axp.Task
				if err := json.Unmarshal(r, &t); err != nil {
					return nil, err
				}
				byID[t.ID] = listed{raw: compact(r), task: t}
			}
			if list.NextCursor == "" || list.NextCursor == q.Cursor {
				break
			}
			q.Cursor = list.NextCursor
		}
	}
	out := make([]listed, 0, len(byID))
	for _, l := range byID {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].task.CreatedAt.Equal(out[j].task.CreatedAt) {
			return out[i].task.CreatedAt.After(out[j].task.CreatedAt)
		}
		return out[i].task.ID > out[j].task.ID
	})
	return out, nil
}

func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func listRun(ctx context.Context, o *ListOptions) error {
	tasks, err := ListTasks(ctx, o.F, func(id string, err error) {
		if id == "" {
			fmt.Fprintf(o.IO.ErrOut, "warning: %v\n", err)
			return
		}
		fmt.Fprintf(o.IO.ErrOut, "warning: task %s: %v\n", id, err)
	})
	if err != nil {
		return err
	}
	var kept []listed
	for _, l := range tasks {
		if o.Status == "" || l.task.Status == o.Status {
			kept = append(kept, l)
		}
	}
	if o.Export.Enabled() {
		var b bytes.Buffer
		b.WriteString(`{"tasks":[`)
		for i, l := range kept {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(l.raw)
		}
		b.WriteString("]}\n")
		return o.Export.Write(o.IO, b.Bytes())
	}
	if len(kept) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No tasks for %s; post one with `axp task create`\n", o.F.ExchangeURL())
		return nil
	}
	cs := o.IO.ColorScheme()
	now := o.Now()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "TYPE", "STATUS", "OFFERS", "PRICE", "UPDATED"})
	for _, l := range kept {
		t := l.task
		tp.AddField(t.ID, cmdutil.WithTruncate(nil))
		tp.AddField(t.Type)
		tp.AddField(t.Status, cmdutil.WithColor(cs.Status))
		tp.AddField(strconv.Itoa(len(t.Offers)))
		price := ""
		if t.PriceUSD != nil {
			price = cmdutil.Money(o.IO, *t.PriceUSD)
		}
		tp.AddField(price)
		tp.AddField(cmdutil.Ago(o.IO, now, t.UpdatedAt), cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	return tp.Render()
}
