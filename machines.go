package axp

import (
	"fmt"
	"slices"
	"strings"
)

// Machine is a state machine as data: each event names the statuses it may leave and the status it
// enters. Approval, mediation and settlement statuses change only through their machine (the task
// has its own, with guards, in statemachine.go); so do paid calls; each has a table test.
type Machine struct {
	// Entity names what moves, for errors: "approval", "mediation", "settlement", "paid call".
	Entity string
	Edges  map[string]Edge
}

// Edge is one event of a machine.
type Edge struct {
	From []string
	To   string
}

// Next is the status an entity in status enters on event, or the conflict that refuses it.
func (m *Machine) Next(status, event string) (string, *Error) {
	e, ok := m.Edges[event]
	if !ok {
		return status, Errorf(CodeInternal, "unknown %s event %q", m.Entity, event)
	}
	if !slices.Contains(e.From, status) {
		return status, Conflict(fmt.Sprintf("cannot %s a %s that is %s", strings.ReplaceAll(event, "_", " "), m.Entity, status),
			fmt.Sprintf("%s is allowed when the %s is %s", event, m.Entity, strings.Join(e.From, " or ")))
	}
	return e.To, nil
}

// Move sets *status to its next status on event, or leaves it and answers the conflict.
func (m *Machine) Move(status *string, event string) *Error {
	next, err := m.Next(*status, event)
	if err != nil {
		return err
	}
	*status = next
	return nil
}

// Approval events.
const (
	ApprovalHold     = "hold"      // a payout (or a split's seller part) waits for the seller's payout address
	ApprovalUnhold   = "unhold"    // the seller added a payout address
	ApprovalApprove  = "approve"   // the operator approved: the money moved (or the payment is confirmed)
	ApprovalReject   = "reject"    // the operator rejected, or the item was withdrawn or closed
	ApprovalSend     = "send"      // the operator approved and the hot wallet sent the transfers (evm rail)
	ApprovalConfirm  = "confirm"   // every transfer of a sent item is confirmed on chain
	ApprovalFail     = "fail"      // a transfer of a sent item failed: the item is back in the queue
	ApprovalReorg    = "reorg"     // a confirmed payment's block left the canonical chain
	ApprovalRestore  = "restore"   // a reorged payment's transfer is back in a canonical block
	ApprovalWriteOff = "write_off" // the operator wrote off a reorged payment that never came back
	// ApprovalUnconfirm: a confirmed payout's, refund's or split's transfer left the canonical chain
	// (a reorg deeper than the confirmations): the item is sent again, from the same signed bytes.
	ApprovalUnconfirm = "unconfirm"
)

// ApprovalMachine: pending_approval or failed -> held -> pending_approval; pending_approval ->
// approved (manual rail, payments); an approved payment -> reorged -> approved (its block left the
// canonical chain, then its transfer is back, or -> written_off when it never is);
// pending_approval or failed -> sent -> confirmed | failed (evm rail), and a confirmed item whose
// transfer a deep reorg removed -> sent again; pending, held or failed ->
// rejected. Only a pending (or failed) item is approved: a held one waits for the seller's payout
// address (the buyer's part of a held split is sent without changing the item's status).
var ApprovalMachine = &Machine{Entity: "approval", Edges: map[string]Edge{
	ApprovalHold:     {From: []string{ApprovalPending, ApprovalFailed}, To: ApprovalHeld},
	ApprovalUnhold:   {From: []string{ApprovalHeld}, To: ApprovalPending},
	ApprovalApprove:  {From: []string{ApprovalPending, ApprovalFailed}, To: ApprovalApproved},
	ApprovalReject:   {From: []string{ApprovalPending, ApprovalHeld, ApprovalFailed}, To: ApprovalRejected},
	ApprovalSend:     {From: []string{ApprovalPending, ApprovalFailed}, To: ApprovalSent},
	ApprovalConfirm:  {From: []string{ApprovalSent}, To: ApprovalConfirmed},
	ApprovalFail:     {From: []string{ApprovalSent}, To: ApprovalFailed},
	ApprovalReorg:    {From: []string{ApprovalApproved}, To: ApprovalReorged},
	ApprovalRestore:  {From: []string{ApprovalReorged}, To: ApprovalApproved},
	ApprovalWriteOff: {From: []string{ApprovalReorged}, To: ApprovalWrittenOff},
	// A confirmed item whose transfer a reorg removed is in flight again (its booking stands).
	ApprovalUnconfirm: {From: []string{ApprovalConfirmed}, To: ApprovalSent},
}}

// Mediation events.
const (
	MediationDecide  = "decide"  // the Mediator decided on the statements
	MediationAppeal  = "appeal"  // a party appealed the Mediator's decision
	MediationResolve = "resolve" // the operator decided (on appeal, or before the Mediator), or the parties settled
)

// MediationMachine: awaiting_statements -> decided -> appealed -> resolved; the operator may also
// decide a mediation still awaiting statements (-> resolved).
var MediationMachine = &Machine{Entity: "mediation", Edges: map[string]Edge{
	MediationDecide:  {From: []string{MediationAwaiting}, To: MediationDecided},
	MediationAppeal:  {From: []string{MediationDecided}, To: MediationAppealed},
	MediationResolve: {From: []string{MediationAppealed, MediationAwaiting}, To: MediationResolved},
}}

// Settlement events.
const (
	SettlementAccept    = "accept"    // the other side agreed
	SettlementReject    = "reject"    // the other side refused
	SettlementSupersede = "supersede" // a newer proposal or a decision replaced it
)

// SettlementMachine: proposed -> accepted | rejected | superseded.
var SettlementMachine = &Machine{Entity: "settlement", Edges: map[string]Edge{
	SettlementAccept:    {From: []string{SettlementProposed}, To: SettlementAccepted},
	SettlementReject:    {From: []string{SettlementProposed}, To: SettlementRejected},
	SettlementSupersede: {From: []string{SettlementProposed}, To: SettlementSuperseded},
}}

// Paid call events.
const (
	PaidSubmit  = "submit"  // the settlement (or an auth-capture payment's capture) is about to be sent: its transaction's hash stored, or an outside facilitator about to be asked
	PaidBook    = "book"    // the settlement was mined (or the authorization is used on chain): booked
	PaidRelease = "release" // the call failed before its settlement began: nothing is charged
	PaidLetGo   = "let_go"  // nothing moved and nothing will: no settlement was sent, it reverted, or the authorization expired with its nonce unused
	// Auth-capture payments.
	PaidAuthorize = "authorize" // the escrow's authorize is about to be sent: its hash stored
	PaidHold      = "hold"      // the authorize was mined: the escrow holds the payment, booked
	PaidVoid      = "void"      // the escrow's void is about to be sent (the tool failed, or the call never ended): its hash stored
	PaidBookVoid  = "book_void" // the void was mined: the payment is back with the payer, booked
)

// PaidCallMachine: claimed -> settling -> settled; a claimed call is also booked without a known
// transaction (a facilitator that names none, or an authorization found used on chain); claimed ->
// released when the call fails; claimed or settling -> released when the payment can no longer be
// settled. A settled call is never let go. An auth-capture payment goes claimed -> authorizing ->
// authorized, then -> settling -> settled (captured) or -> voiding -> voided; a capture that did not
// take is voided (settling -> voiding); an authorize that did not take is let go.
var PaidCallMachine = &Machine{Entity: "paid call", Edges: map[string]Edge{
	PaidSubmit:    {From: []string{PaidClaimed, PaidAuthorized}, To: PaidSettling},
	PaidBook:      {From: []string{PaidClaimed, PaidSettling}, To: PaidSettled},
	PaidRelease:   {From: []string{PaidClaimed}, To: PaidReleased},
	PaidLetGo:     {From: []string{PaidClaimed, PaidSettling, PaidAuthorizing}, To: PaidReleased},
	PaidAuthorize: {From: []string{PaidClaimed}, To: PaidAuthorizing},
	PaidHold:      {From: []string{PaidAuthorizing}, To: PaidAuthorized},
	PaidVoid:      {From: []string{PaidAuthorized, PaidSettling, PaidVoiding}, To: PaidVoiding},
	PaidBookVoid:  {From: []string{PaidVoiding}, To: PaidVoided},
}}
