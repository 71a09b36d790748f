package admin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/contract"
	"github.com/spf13/cobra"
)

func newMembersCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "members",
		Short: "Members: list, suspend, unsuspend",
	}
	c.AddCommand(NewCmdMembersList(f, nil), NewCmdSuspend(f, nil, true), NewCmdSuspend(f, nil, false))
	return c
}

// MembersListOptions are the inputs of `axp admin members list`.
type MembersListOptions struct {
	F      *cmdutil.Factory
	IO     *cmdutil.IOStreams
	Export cmdutil.Exporter
	State  string
	Role   string
	Now    func() time.Time
}

// NewCmdMembersList builds `axp admin members list`.
func NewCmdMembersList(f *cmdutil.Factory, runF func(context.Context, *MembersListOptions) error) *cobra.Command {
	o := &MembersListOptions{F: f, IO: f.IO, Now: time.Now}
	states := allowed(contract.AdminMembers, "state")
	c := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List every member, with private fields",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := oneOf("--state", o.State, states); err != nil {
				return err
			}
			if err := oneOf("--role", o.Role, allowed(contract.AdminMembers, "role")); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return membersListRun(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.State, "state", "", "registered, verified, unreachable or suspended")
	c.Flags().StringVar(&o.Role, "role", "", "buyer or seller")
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func membersListRun(ctx context.Context, o *MembersListOptions) error {
	l, raw, err := call(ctx, o.F, contract.AdminMembers, axp.MembersQuery{State: o.State, Role: o.Role})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	if len(l.Members) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No members")
		return nil
	}
	cs := o.IO.ColorScheme()
	now := o.Now()
	tp := cmdutil.Table(o.IO)
	tp.AddHeader([]string{"ID", "NAME", "ROLES", "STATE", "MODE", "SKILLS", "LAST SEEN"})
	for _, m := range l.Members {
		tp.AddField(m.ID, cmdutil.WithTruncate(nil))
		tp.AddField(m.Name, cmdutil.WithColor(cs.Bold))
		tp.AddField(strings.Join(m.Roles, ","))
		tp.AddField(m.State, cmdutil.WithColor(cs.Status))
		tp.AddField(m.Mode)
		var skills []string
		for _, s := range m.Skills {
			skills = append(skills, s.TaskType)
		}
		tp.AddField(strings.Join(skills, ","))
		tp.AddField(cmdutil.Ago(o.IO, now, m.LastSeenAt), cmdutil.WithColor(cs.Gray))
		tp.EndRow()
	}
	return tp.Render()
}

// SuspendOptions are the inputs of `axp admin members suspend` and `unsuspend`.
type SuspendOptions struct {
	F       *cmdutil.Factory
	IO      *cmdutil.IOStreams
	Export  cmdutil.Exporter
	Suspend bool
	ID      string
	Reason  string
	Yes     bool
}

// NewCmdSuspend builds `axp admin members suspend` (suspend true) or `unsuspend`.
func NewCmdSuspend(f *cmdutil.Factory, runF func(context.Context, *SuspendOptions) error, suspend bool) *cobra.Command {
	o := &SuspendOptions{F: f, IO: f.IO, Suspend: suspend}
	c := &cobra.Command{
		Use:   "suspend ID [--reason TEXT]",
		Short: "Suspend a member: out of matching, its calls refused",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return suspendRun(c.Context(), o)
		},
	}
	if !suspend {
		c.Use = "unsuspend ID [--reason TEXT]"
		c.Short = "Lift a suspension; the member verifies again"
	}
	c.Flags().StringVar(&o.Reason, "reason", "", "why (kept in the audit trail)")
	cmdutil.AddYesFlag(c, &o.Yes)
	cmdutil.AddExportFlags(c, &o.Export)
	return c
}

func suspendRun(ctx context.Context, o *SuspendOptions) error {
	def, done, verb, effect := contract.AdminSuspend, "Suspended", "suspend", "out of matching, and its calls are refused until the suspension is lifted"
	if !o.Suspend {
		def, done, verb, effect = contract.AdminUnsuspend, "Lifted the suspension of", "lift the suspension of", "back in matching once it verifies again"
	}
	err := cmdutil.ConfirmStep(o.IO, o.Yes, verb+" member "+o.ID, func() ([]string, error) {
		l, _, err := call(ctx, o.F, contract.AdminMembers, axp.MembersQuery{})
		if err != nil {
			return nil, err
		}
		for _, m := range l.Members {
			if m.ID == o.ID {
				return []string{fmt.Sprintf("%s (%s), %s, now %s", m.ID, m.Name, strings.Join(m.Roles, ","), m.State), "it will be " + effect}, nil
			}
		}
		return nil, &axp.Error{Code: axp.CodeNotFound, Message: "member " + o.ID + " does not exist", Hint: "list them with `axp admin members list`"}
	})
	if err != nil {
		return err
	}
	m, raw, err := call(ctx, o.F, def, axp.SuspendBody{ID: o.ID, Reason: o.Reason})
	if err != nil {
		return err
	}
	if o.Export.Enabled() {
		return o.Export.Write(o.IO, raw)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ %s %s (%s); its state is %s\n", done, m.ID, m.Name, m.State)
	return nil
}
