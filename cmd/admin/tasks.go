package admin

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/cmd/task"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

func newTasksCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "tasks",
		Short: "Tasks: list every task, view any task",
	}
	c.AddCommand(NewCmdTasksList(f, nil), NewCmdTasksView(f, nil))
	return c
}

// TasksListOptions are the inputs of `axp admin tasks list`.
type TasksListOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	Status string
	Type   string
	Member string
	Since  time.Time
	Limit  int
	Cursor string
	Now    func() time.Time
}

// NewCmdTasksList builds `axp admin tasks list`.
func NewCmdTasksList(f *cmdutil.Factory, runF func(context.Context, *TasksListOptions) error) *cobra.Command {
	o := &TasksListOptions{F: f, IO: f.IO, Now: time.Now}
	var since string
	c := &cobra.Command{
		Use:     "list [--status S] [--type T] [--member M] [--since D]",
		Aliases: []string{"ls"},
		Short:   "List every task, newest first",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneOf("--status", o.Status, allowed(contract.AdminTasks, "status")); err != nil {
				return err
			}
			if o.Limit < 0 || o.Limit > axp.AdminTasksPageMax {
				return cmdutil.Usagef("--limit must be 1 to %d", axp.AdminTasksPageMax)
			}
			if since != "" {
				t, err := parseSince(since, o.Now())
				if err != nil {
					return err
				}
				o.Since = t
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return tasksListRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.Status, "status", "", "one status: "+strings.Join(allowed(contract.AdminTasks, "status"), ", "))
	c.Flags().StringVar(&o.Type, "type", "", "one task type, e.g. text-file")
	c.Flags().StringVar(&o.Member, "member", "", "a member id: tasks it posted or was chosen for")
	c.Flags().StringVar(&since, "since", "", "created since: a duration (90m, 24h, 7d), a date (2006-01-02) or an RFC 3339 time")
	c.Flags().IntVarP(&o.Limit, "limit", "L", 0, fmt.Sprintf("at most this many tasks (default %d)", axp.AdminTasksPageDefault))
	c.Flags().StringVar(&o.Cursor, "cursor", "", "continue after this task id (the next page's hint names it)")
	_ = c.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(allowed(contract.AdminTasks, "status"), cobra.ShellCompDirectiveNoFileComp))
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

// parseSince reads --since: a duration before now (days as "7d"), a date or an RFC 3339 time.
func parseSince(v string, now time.Time) (time.Time, error) {
	if n, ok := strings.CutSuffix(v, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.AddDate(0, 0, -d), nil
		}
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, v, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Time{}, cmdutil.Usagef("--since %q: use a duration (90m, 24h, 7d), a date (2006-01-02) or an RFC 3339 time", v)
}

func tasksListRun(ctx context.Context, o *TasksListOptions) error {
	in := axp.AdminTasksQuery{Status: o.Status, Type: o.Type, Member: o.Member, Cursor: o.Cursor, Limit: o.Limit}
	if !o.Since.IsZero() {
		in.Since = o.Since.UTC().Format(time.RFC3339)
	}
	l, raw, err := call(ctx, o.F, contract.AdminTasks, in)
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(l.Tasks) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No tasks")
		return nil
	}
	cs := o.IO.ColorScheme()
	now := o.Now()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "TYPE", "STATUS", "PRICE", "BUYER", "SELLER", "CREATED"})
	for _, t := range l.Tasks {
		tp.AddField(t.ID, cmdutil.WithTruncate(nil))
		tp.AddField(t.Type)
		tp.AddField(t.Status, cmdutil.WithColor(cs.Status))
		price := "-"
		if t.Price != nil {
			price = cmdutil.Money(o.IO, *t.Price)
		}
		tp.AddField(price)
		tp.AddField(t.Buyer)
		seller := t.SellerName
		if seller == "" {
			seller = t.SellerID
		}
		tp.AddField(seller)
		tp.AddField(cmdutil.Ago(o.IO, now, t.CreatedAt), cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	if err := tp.Render(); err != nil {
		return err
	}
	if l.NextCursor != "" {
		fmt.Fprintf(o.IO.ErrOut, "More tasks: add --cursor %s\n", l.NextCursor)
	}
	return nil
}

// TasksViewOptions are the inputs of `axp admin tasks view`.
type TasksViewOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	TaskID string
}

// NewCmdTasksView builds `axp admin tasks view`.
func NewCmdTasksView(f *cmdutil.Factory, runF func(context.Context, *TasksViewOptions) error) *cobra.Command {
	o := &TasksViewOptions{F: f, IO: f.IO}
	c := &cobra.Command{
		Use:   "view TASK",
		Short: "Show any task as its buyer sees it, with its offers",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.TaskID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return tasksViewRun(c.Context(), o)
		},
	}
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func tasksViewRun(ctx context.Context, o *TasksViewOptions) error {
	t, raw, err := call(ctx, o.F, contract.AdminTask, axp.IDPath{ID: o.TaskID})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	return task.WriteTask(o.IO, t)
}
