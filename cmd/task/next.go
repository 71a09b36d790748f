package task

import "github.com/axp-exchange/axp"

// NextCommands are the axp commands that take a task's buyer to the next step, in the place of
// the API's next_steps (which name REST calls, for agents). Empty when the buyer has nothing to do.
func NextCommands(t *axp.Task) []string {
	id := t.ID
	switch t.Status {
	case axp.TaskOpen:
		if len(t.Offers) == 0 {
			return []string{"wait for offers: axp task watch " + id + " --until awaiting_payment"}
		}
		return []string{"compare the offers: axp offers " + id, "choose one: axp task choose " + id + " [OFFER]"}
	case axp.TaskAwaitingPayment:
		if t.Payment != nil && t.Payment.TestMode {
			return []string{"pay it with test money: axp wallet pay " + id + " (axp wallet new and axp wallet fund first)"}
		}
		if t.Payment != nil && t.Payment.Verifier == "evm" {
			return []string{"see what to send: axp task pay " + id + " (the exchange finds the transfer on chain)"}
		}
		return []string{"see what to send: axp task pay " + id, "once sent, report it: axp task pay " + id + " --tx HASH"}
	case axp.TaskPaid, axp.TaskInProgress:
		return []string{"the seller is working: axp task watch " + id}
	case axp.TaskDelivered:
		return []string{"download and check it: axp task deliverable " + id + " -o FILE",
			"then accept it: axp task accept " + id, "or dispute it: axp task dispute " + id + " --reason TEXT"}
	case axp.TaskDisputed:
		return []string{"talk it over: axp task message " + id + " --body TEXT",
			"offer a settlement: axp task settle " + id + " --refund-pct N", "or ask the Mediator: axp task escalate " + id + " --reason TEXT"}
	case axp.TaskAccepted:
		return []string{"review the job: axp task review " + id + " --rating N (the seller is paid once the operator approves)"}
	}
	return nil
}

// waitingOnBuyer reports whether the buyer has to act before the task moves on (watch stops there).
func waitingOnBuyer(t *axp.Task) bool {
	switch t.Status {
	case axp.TaskAwaitingPayment:
		return t.Payment == nil || t.Payment.TxHash == "" && t.Payment.Verifier != "evm"
	case axp.TaskDelivered, axp.TaskAccepted, axp.TaskDisputed:
		return true
	}
	return false
}
