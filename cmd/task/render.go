package task

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/cmd/cmdutil"
	"github.com/axp-exchange/axp/protocol"
)

// Reliability renders a seller's measured record in a few words.
func Reliability(r axp.Reliability) string {
	var parts []string
	pct := func(label string, v *float64) {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%s %d%%", label, int(*v*100+0.5)))
		}
	}
	pct("on time", r.OnTimeRate)
	pct("first pass", r.FirstPassRate)
	pct("disputed", r.DisputeRate)
	if len(parts) == 0 {
		return "no record"
	}
	return strings.Join(parts, ", ")
}

func recommended(t *axp.Task, offerID string) bool {
	return t.RecommendedOffer != nil && *t.RecommendedOffer == offerID
}

// writeOffers prints the offers table of a task.
func writeOffers(s *cmdutil.IOStreams, t *axp.Task) error {
	cs := s.ColorScheme()
	tp := cmdutil.Table(s)
	tp.AddHeader([]string{"#", "OFFER", "SELLER", "PRICE", "SELLER NETS", "ETA", "RELIABILITY", "BADGES"})
	for i, o := range t.Offers {
		n := strconv.Itoa(i + 1)
		if recommended(t, o.OfferID) && s.StdoutTTY {
			n += "*"
		}
		tp.AddField(n)
		tp.AddField(o.OfferID, cmdutil.WithColor(cs.Gray))
		tp.AddField(o.Seller.Name)
		tp.AddField(cmdutil.Money(s, o.PriceUSD), cmdutil.WithColor(cs.Bold))
		tp.AddField(cmdutil.Money(s, o.Fee.SellerNet))
		tp.AddField(eta(s, o.ETAMinutes))
		tp.AddField(Reliability(o.Reliability))
		tp.AddField(strings.Join(axp.BadgeWords(o.Badges), ", "), cmdutil.WithColor(cs.Cyan))
		tp.EndRow()
	}
	if err := tp.Render(); err != nil {
		return err
	}
	if s.StdoutTTY && t.RecommendedOffer != nil {
		fmt.Fprintln(s.Out, cs.Gray("* recommended (best value: price 50%, ETA 30%, reliability 20%)"))
	}
	if s.StdoutTTY && t.TestMode {
		fmt.Fprintln(s.Out, cs.Yellow("Prices are in test money: this exchange runs in test mode, none of it is real"))
	}
	return nil
}

func eta(s *cmdutil.IOStreams, minutes int) string {
	if !s.StdoutTTY {
		return strconv.Itoa(minutes)
	}
	if minutes >= 120 && minutes%60 == 0 {
		return fmt.Sprintf("%dh", minutes/60)
	}
	return fmt.Sprintf("%d min", minutes)
}

// feeText is the fee breakdown of a price.
func feeText(fee axp.Fee) string {
	return fmt.Sprintf("buyer pays %s (no buyer fee); platform fee %s (%s); seller nets %s",
		fee.BuyerTotal.Display(), fee.PlatformFee.Display(), bps(fee.FeeBPS), fee.SellerNet.Display())
}

func bps(b int64) string {
	s := strconv.FormatFloat(float64(b)/100, 'f', -1, 64)
	return s + "%"
}

func params(p map[string]any) string { return protocol.Pairs(p) }

func timeText(s *cmdutil.IOStreams, t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return cmdutil.Time(s, *t)
}

// paymentPairs are the label/value pairs of what to pay and where.
func paymentPairs(s *cmdutil.IOStreams, p *axp.PaymentInfo) []string {
	if p == nil {
		return nil
	}
	cs := s.ColorScheme()
	return []string{
		"Payment", cs.Status(p.Status),
		"Price", cmdutil.Money(s, p.AmountUSD),
		"Payable", cs.Bold(cmdutil.Money(s, p.PayableUSD)) + s.OnTTY(" (send exactly this: the last digits identify your payment)"),
		"Currency", p.Currency + s.OnTTY(" stablecoin"),
		"Deposit address", p.DepositAddress,
		"Chain", chainText(p),
		"Token", tokenText(p),
		"Payable units", p.PayableUnits,
		"Payment URI", p.PaymentURI,
		"Pay by", timeText(s, p.PayBy),
		"Transaction", p.TxHash,
		"Received", nonZero(s, p.ReceivedUSD),
		"Still due", nonZero(s, p.MissingUSD),
		"Amount note", p.AmountNote,
		"By authorization", authText(s, p.Authorization),
		"Into escrow", escrowText(s, p.Escrow),
	}
}

// escrowText says that the task may be paid into the escrow contract, and how.
func escrowText(s *cmdutil.IOStreams, e *axp.EscrowTerms) string {
	if e == nil {
		return ""
	}
	return cmdutil.Money(s, e.Authorization.ValueUSD) + " to " + e.EscrowAddress +
		s.OnTTY(", held by the contract until the seller is paid: axp wallet pay --escrow signs it and the exchange submits it (no gas)")
}

// heldText says in plain words where the money of a task paid into the escrow contract is and,
// while it is held, how the buyer takes it back.
func heldText(s *cmdutil.IOStreams, t *axp.Task) string {
	e := t.Escrow
	if e == nil {
		return ""
	}
	amount := cmdutil.Money(s, e.AmountUSD)
	switch e.State {
	case axp.EscrowCaptured:
		return "paid out: the escrow contract " + e.EscrowAddress + " paid the " + amount + " to the seller"
	case axp.EscrowVoided:
		return "refunded: the escrow contract " + e.EscrowAddress + " returned the " + amount + " to the paying wallet"
	case axp.EscrowReclaimed:
		return "reclaimed: the buyer took the " + amount + " back from the escrow contract " + e.EscrowAddress + " (transaction " + e.ReclaimTxHash + ")"
	}
	expiry := cmdutil.Time(s, e.AuthorizationExpiry)
	if e.Reclaim == "" {
		return amount + " is held by the escrow contract " + e.EscrowAddress + " until the exchange pays it out or refunds it; after " + expiry + " the buyer may reclaim it"
	}
	return "Your " + amount + " is held by the escrow contract " + e.EscrowAddress + "; if the exchange does not pay out or refund by " + expiry +
		", run `" + e.Reclaim + "`"
}

// authText says that the task may be paid by signed authorization, and how.
func authText(s *cmdutil.IOStreams, a *axp.AuthorizationTerms) string {
	if a == nil {
		return ""
	}
	return cmdutil.Money(s, a.ValueUSD) + s.OnTTY(" signed, not sent: axp wallet pay signs it and the exchange submits it (no gas)")
}

func chainText(p *axp.PaymentInfo) string {
	if p.ChainID == 0 {
		return ""
	}
	return fmt.Sprintf("%d", p.ChainID)
}

func tokenText(p *axp.PaymentInfo) string {
	if p.TokenAddress == "" {
		return ""
	}
	if p.TokenSymbol == "" {
		return fmt.Sprintf("%s (%d decimals)", p.TokenAddress, p.TokenDecimals)
	}
	return fmt.Sprintf("%s %s (%d decimals)", p.TokenSymbol, p.TokenAddress, p.TokenDecimals)
}

func nonZero(s *cmdutil.IOStreams, m axp.Money) string {
	if m == 0 {
		return ""
	}
	return cmdutil.Money(s, m)
}

// WriteTask prints a task's details, then its offers while it is open.
func WriteTask(s *cmdutil.IOStreams, t *axp.Task) error {
	cs := s.ColorScheme()
	pairs := []string{
		"Task", cs.Bold(t.ID),
		"Type", t.Type,
		"Status", cs.Status(t.Status),
		"Description", t.Description,
		"Params", params(t.Params),
		"Payment method", t.PaymentMethod,
	}
	if t.Seller != nil {
		pairs = append(pairs, "Seller", t.Seller.Name+" ("+t.Seller.ID+")")
	}
	if t.PriceUSD != nil {
		pairs = append(pairs, "Price", cmdutil.Money(s, *t.PriceUSD))
	}
	if t.Fee != nil {
		pairs = append(pairs, "Fee", feeText(*t.Fee))
	}
	pay := paymentPairs(s, t.Payment)
	if t.PriceUSD != nil {
		// The task's price is shown above: the payment's is the same amount.
		pay = dropPair(pay, "Price")
	}
	pairs = append(pairs, pay...)
	pairs = append(pairs, "Escrow", heldText(s, t))
	if t.Deliverable != nil {
		pairs = append(pairs, "Deliverable", fmt.Sprintf("sha256 %s (deliveries %d, free redos left %d)", t.Deliverable.SHA256, t.Deliveries, t.RedosLeft))
	}
	if len(t.Checks) > 0 {
		pairs = append(pairs, "Checks", checksText(cs, t.Checks))
	}
	if t.AutoReleaseAt != nil {
		pairs = append(pairs, "Auto-release", *t.AutoReleaseAt)
	}
	if t.ReleaseDue {
		pairs = append(pairs, "Release due", "yes: the operator decides")
	}
	pairs = append(pairs, "Next", strings.Join(NextCommands(t), "; "), "Created", timeText(s, &t.CreatedAt), "Updated", timeText(s, &t.UpdatedAt))
	if err := cmdutil.KeyValues(s, pairs...); err != nil {
		return err
	}
	for _, c := range t.Clarifications {
		fmt.Fprintf(s.Out, "%s asks: %s\n", c.Seller.Name, strings.Join(c.Questions, " / "))
	}
	if len(t.Offers) > 0 {
		if s.StdoutTTY {
			fmt.Fprintf(s.Out, "\n%s\n", cs.Bold(fmt.Sprintf("Offers (%d)", len(t.Offers))))
		}
		return writeOffers(s, t)
	}
	return nil
}

// dropPair removes the pair labelled label from label/value pairs.
func dropPair(pairs []string, label string) []string {
	out := make([]string, 0, len(pairs))
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] != label {
			out = append(out, pairs[i], pairs[i+1])
		}
	}
	return out
}

// checksText renders acceptance check results.
func checksText(cs cmdutil.ColorScheme, checks []axp.CheckResult) string {
	var parts []string
	for _, c := range checks {
		mark := cs.Green("✓ " + c.Name)
		if !c.Passed {
			mark = cs.Red("✗ " + c.Name)
			if c.Detail != "" {
				mark += " (" + c.Detail + ")"
			}
		}
		parts = append(parts, mark)
	}
	return strings.Join(parts, ", ")
}
