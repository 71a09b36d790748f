package axp

import (
	"fmt"
	"slices"
	"strings"
)

// Trigger is something that happens to a task.
type Trigger string

// Triggers of the task state machine (docs/design.md section 3).
const (
	TrigQuote         Trigger = "quote"           // a seller offers or declines (open stays open)
	TrigClarify       Trigger = "clarify"         // the buyer answers questions (open stays open)
	TrigChoose        Trigger = "choose"          // the buyer picks an offer
	TrigPay           Trigger = "pay"             // the payment is confirmed
	TrigStart         Trigger = "start"           // the seller accepted do_task
	TrigSellerDecline Trigger = "seller_decline"  // the seller refused do_task: back to the buyer's choice
	TrigDeliver       Trigger = "deliver"         // a delivery is registered
	TrigAccept        Trigger = "accept"          // the buyer accepts the delivery
	TrigDispute       Trigger = "dispute"         // the buyer disputes the delivery
	TrigRedo          Trigger = "redo"            // the buyer asks for a guaranteed free redo
	TrigRequestPay    Trigger = "request_payment" // the seller asks to be paid (accepted stays accepted)
	TrigRelease       Trigger = "release"         // the payout was approved and sent (or a free job ended)
	TrigRefund        Trigger = "refund"          // a full refund was approved and sent
	TrigSettle        Trigger = "settle"          // a split was approved and sent
	TrigCancel        Trigger = "cancel"          // the buyer withdraws before the job starts
	TrigExpire        Trigger = "expire"          // no choice or no payment within its window
	// TrigOperatorAccept: the operator releases a task whose auto-release window passed.
	TrigOperatorAccept Trigger = "operator_accept"
	// TrigReclaim: the buyer took the money back from the escrow contract after its authorization
	// expiry (no exchange involved); whatever the task was doing, it ends refunded.
	TrigReclaim Trigger = "reclaim"
)

// Triggers lists every trigger, for tables and documentation.
var Triggers = []Trigger{TrigQuote, TrigClarify, TrigChoose, TrigPay, TrigStart, TrigSellerDecline, TrigDeliver,
	TrigAccept, TrigDispute, TrigRedo, TrigRequestPay, TrigRelease, TrigRefund, TrigSettle, TrigCancel, TrigExpire, TrigOperatorAccept, TrigReclaim}

// Facts are what the guards of the state machine look at.
type Facts struct {
	Free      bool   // the task is a free job
	Retrieved bool   // the buyer retrieved the latest delivery
	Reason    string // a dispute's reason
	RedosLeft int    // free redos the chosen offer still allows
}

type edge struct {
	from  []string
	to    func(from string, f Facts) string
	guard func(f Facts) *Error
}

func to(s string) func(string, Facts) string { return func(string, Facts) string { return s } }

func same(from string, _ Facts) string { return from }

// machine is the task state machine as data: for each trigger, the states it may fire in, the state
// it leads to and the guard that must hold.
var machine = map[Trigger]edge{
	TrigQuote:   {from: []string{TaskOpen}, to: same},
	TrigClarify: {from: []string{TaskOpen}, to: same},
	TrigChoose: {from: []string{TaskOpen}, to: func(_ string, f Facts) string {
		if f.Free {
			return TaskPaid
		}
		return TaskAwaitingPayment
	}},
	TrigPay:           {from: []string{TaskAwaitingPayment}, to: to(TaskPaid)},
	TrigStart:         {from: []string{TaskPaid}, to: to(TaskInProgress)},
	TrigSellerDecline: {from: []string{TaskPaid}, to: to(TaskOpen)},
	TrigDeliver:       {from: []string{TaskPaid, TaskInProgress}, to: to(TaskDelivered)},
	TrigAccept: {from: []string{TaskDelivered}, to: to(TaskAccepted), guard: func(f Facts) *Error {
		if !f.Retrieved {
			// Field names what is missing, so clients can tell this conflict from the others.
			e := Conflict("the deliverable has not been retrieved yet", "GET /api/tasks/{id}/deliverable first, then accept")
			e.Field = "deliverable"
			return e
		}
		return nil
	}},
	TrigDispute: {from: []string{TaskDelivered}, to: to(TaskDisputed), guard: func(f Facts) *Error {
		if strings.TrimSpace(f.Reason) == "" {
			return Invalid("reason", "is required to dispute", "say what is wrong with the delivery")
		}
		return nil
	}},
	TrigRedo: {from: []string{TaskDelivered}, to: to(TaskInProgress), guard: func(f Facts) *Error {
		if f.RedosLeft <= 0 {
			return Conflict("no free redo is left on this offer", "accept or dispute the delivery")
		}
		return nil
	}},
	TrigRequestPay: {from: []string{TaskAccepted}, to: same},
	TrigRelease:    {from: []string{TaskAccepted}, to: to(TaskReleased)},
	// expired or cancelled: a payment no job used goes back.
	TrigRefund: {from: []string{TaskDisputed, TaskExpired, TaskCancelled}, to: to(TaskRefunded)},
	TrigSettle: {from: []string{TaskDisputed}, to: to(TaskReleased)},
	TrigCancel: {from: []string{TaskOpen, TaskAwaitingPayment}, to: to(TaskCancelled)},
	TrigExpire: {from: []string{TaskOpen, TaskAwaitingPayment}, to: to(TaskExpired)},
	// Funds never move because a buyer went quiet: after the auto-release window the task waits in
	// the operator's queue, and only the operator's decision accepts it on the buyer's behalf.
	TrigOperatorAccept: {from: []string{TaskDelivered}, to: to(TaskAccepted)},
	TrigReclaim: {from: []string{TaskOpen, TaskAwaitingPayment, TaskPaid, TaskInProgress, TaskDelivered, TaskAccepted, TaskDisputed,
		TaskCancelled, TaskExpired}, to: to(TaskRefunded)},
}

// Next is the state machine: the status a task in status moves to on trigger t, or the error that
// refuses it (a conflict naming the states that allow it, or the guard's error).
func Next(status string, t Trigger, f Facts) (string, *Error) {
	e, ok := machine[t]
	if !ok {
		return status, Errorf(CodeInternal, "unknown trigger %q", t)
	}
	allowed := false
	for _, s := range e.from {
		if s == status {
			allowed = true
			break
		}
	}
	if !allowed {
		return status, Conflict(fmt.Sprintf("cannot %s a task that is %s", verb(t), status),
			fmt.Sprintf("%s is allowed when the task is %s", t, strings.Join(e.from, " or ")))
	}
	if e.guard != nil {
		if err := e.guard(f); err != nil {
			return status, err
		}
	}
	return e.to(status, f), nil
}

// AllowedFrom lists the states in which trigger t may fire.
func AllowedFrom(t Trigger) []string { return machine[t].from }

// Terminal reports whether no trigger leads out of status.
func Terminal(status string) bool {
	for _, e := range machine {
		for _, s := range e.from {
			if s == status {
				return false
			}
		}
	}
	return true
}

// Reachable reports whether a task in status from can still come to status target (from itself
// counts), over any trigger whatever its guard: `axp task watch --until` stops when it cannot.
func Reachable(from, target string) bool {
	seen := map[string]bool{from: true}
	for queue := []string{from}; len(queue) > 0; queue = queue[1:] {
		if queue[0] == target {
			return true
		}
		for _, e := range machine {
			if !slices.Contains(e.from, queue[0]) {
				continue
			}
			for _, free := range []bool{false, true} {
				if next := e.to(queue[0], Facts{Free: free}); !seen[next] {
					seen[next] = true
					queue = append(queue, next)
				}
			}
		}
	}
	return false
}

func verb(t Trigger) string {
	switch t {
	case TrigRequestPay:
		return "request payment for"
	case TrigSellerDecline:
		return "decline"
	case TrigQuote:
		return "quote on"
	case TrigClarify:
		return "clarify"
	}
	return string(t)
}
