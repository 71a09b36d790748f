package paid

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/paidtools"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

func (s *Service) paidInjectionCheck(ctx context.Context, c *pipeline.Call, in *axp.InjectionCheckInput) (*axp.InjectionCheckResult, error) {
	return paidtools.InjectionCheck(in)
}

func (s *Service) paidTradingRisk(ctx context.Context, c *pipeline.Call, in *axp.TradingRiskQuery) (*axp.TradingRiskResult, error) {
	return paidtools.TradingRisk(in)
}

func (s *Service) paidWebContents(ctx context.Context, c *pipeline.Call, in *axp.WebContentsInput) (*axp.WebContentsResult, error) {
	return s.Fetcher.Contents(ctx, in)
}

func (s *Service) paidWebSearch(ctx context.Context, c *pipeline.Call, in *axp.WebSearchQuery) (*axp.WebSearchResult, error) {
	// A nil search answers that the backend is not configured, naming search_url.
	return s.WebSearch.Search(ctx, in)
}

// toolUnavailable says why a pay-per-call tool cannot answer on this exchange, or "".
func (s *Service) toolUnavailable(op *contract.Op) string {
	switch op.Needs {
	case "search_url":
		if s.base.Cfg().SearchURL == "" {
			return "needs a search backend: set search_url to a SearxNG-compatible JSON API"
		}
	}
	return s.recorded.RecordedUnavailable(op.Needs)
}

// findPaidTools lists the pay-per-call tools (GET /paid, MCP find_paid_tools).
func (s *Service) findPaidTools(ctx context.Context, c *pipeline.Call, in *axp.PaidToolsQuery) (*axp.PaidToolList, error) {
	pw := s.paid
	base := s.base.BaseURL()
	out := &axp.PaidToolList{Tools: []axp.PaidTool{}, Items: []axp.BazaarItem{}, Categories: []string{}, X402Version: 2,
		Payment: axp.PaidPaymentInfo{Protocol: "x402", Versions: []int{2}, Scheme: "exact", Network: pw.network,
			NetworkV1: pw.networkV1, Asset: pw.asset, PayTo: pw.payTo, Available: pw.fac != nil, Unavailable: pw.why,
			TrialPerDay: pw.trial}}
	if pw.networkV1 != "" {
		out.Payment.Versions = []int{1, 2}
		out.Payment.V1Amounts = fmt.Sprintf("an x402 v1 payment authorizes the price less the tool's tag, 1 to %d micro-USD (v1_amount_usd): "+
			"it names no tool, so its amount binds it to the one it was made for; v2 payments pay the price", int64(axp.V1TagMax))
	}
	if pw.fac != nil {
		out.Payment.Facilitator = pw.fac.Name()
	}
	type entry struct {
		op         *contract.Op
		path       string
		price, tag axp.Money
		sum        string
		cat        string
	}
	var list []entry
	for i := range contract.Ops {
		op := contract.Ops[i]
		if op.Access != contract.Paid || op.Category == "" || op.PriceFrom != contract.PriceFixed {
			continue
		}
		list = append(list, entry{op, op.Path, pw.price(op), contract.V1Tag(op.Name), op.Summary, op.Category})
	}
	var conns []axp.Connector
	if err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		conns, err = tx.Connectors(axp.ConnectorLive)
		return err
	}); err != nil {
		return nil, err
	}
	connOp := contract.PaidConnector.Op()
	for _, cn := range conns {
		sum := cn.Wants
		if cn.Category == "" {
			cn.Category = connOp.Category
		}
		list = append(list, entry{connOp, "/paid/connectors/" + cn.Name, cn.PriceUSD, axp.ConnectorV1Tag(cn.Name), sum, cn.Category})
	}
	q := strings.ToLower(strings.TrimSpace(in.Q))
	cats := map[string]bool{}
	for _, e := range list {
		cats[e.cat] = true
		if in.Category != "" && !strings.EqualFold(in.Category, e.cat) {
			continue
		}
		if q != "" && !matchesAll(q, e.op.Name+" "+e.path+" "+e.sum+" "+e.cat) {
			continue
		}
		t := axp.PaidTool{Name: e.op.Name, Method: e.op.Method, Path: e.path, URL: base + e.path, Summary: e.sum,
			Category: e.cat, PriceUSD: e.price, Unavailable: s.toolUnavailable(e.op)}
		if e.path != e.op.Path {
			t.Name = strings.TrimPrefix(e.path, "/paid/")
		}
		t.Available = t.Unavailable == ""
		if pw.networkV1 != "" {
			t.V1AmountUSD = e.price - e.tag
		}
		if e.op.In != nil {
			t.Params = protocol.SchemaOf(e.op.In)
		}
		if e.op.Out != nil {
			t.Result = protocol.SchemaOf(e.op.Out)
		}
		if pw.trial > 0 {
			t.TrialURL = t.URL + "?trial=1"
		}
		out.Tools = append(out.Tools, t)
		if t.Available && pw.fac != nil {
			terms := pw.terms(e.price, e.tag, t.URL, e.op)
			accepts := []any{terms.V2}
			out.Items = append(out.Items, axp.BazaarItem{Resource: t.URL, Type: "http", X402Version: 2, Accepts: accepts,
				LastUpdated: s.base.Started().UTC(), Description: e.sum,
				Metadata: map[string]any{"category": e.cat, "price_usd": e.price, "bazaar": map[string]any{"info": bazaarInfo(e.op)}}})
		}
	}
	for k := range cats {
		out.Categories = append(out.Categories, k)
	}
	sort.Strings(out.Categories)
	return out, nil
}

// matchesAll reports whether every word of q appears in text (case-insensitive).
func matchesAll(q, text string) bool {
	text = strings.ToLower(text)
	for _, w := range strings.Fields(q) {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// requestConnector records a request for a connector to a new data source (free, 201).
func (s *Service) requestConnector(ctx context.Context, c *pipeline.Call, in *axp.ConnectorRequest) (*axp.Connector, error) {
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, axp.Invalid("url", "must be an absolute http or https URL of the data source", "e.g. https://api.example.org/v1/prices")
	}
	// The outbound guard, now rather than when the connector is first called: a private,
	// link-local, NAT64 or (on an exchange others reach) loopback address is refused.
	if err := s.reach.CheckTarget("url", in.URL); err != nil {
		return nil, err
	}
	if p := screening.ListingPolicy("connector", in.Wants, nil); p != nil {
		return nil, axp.Forbidden("this connector is not listed: "+p.Reason, "a rejection can be overturned by the operator: write to them with POST /api/members/me/operator-messages")
	}
	var out *axp.Connector
	_, err = s.base.MutateCall(ctx, c, func(ch *kernel.Change) (any, error) {
		wants := screening.StoredCopy(in.Wants, true)
		sc := screening.ScreenText(wants)
		cn := &axp.Connector{ID: axp.NewID("con", ch.Now), URL: in.URL, Wants: wants, Status: axp.ConnectorPending,
			Requester: c.Caller.Actor(), SetupFeeUSD: axp.ConnectorSetupFee, Flagged: sc.Flagged, CreatedAt: ch.Now, UpdatedAt: ch.Now}
		for _, f := range sc.Findings {
			cn.Flags = append(cn.Flags, f.Rule)
		}
		if err := ch.Tx.PutConnector(cn); err != nil {
			return nil, err
		}
		out = cn
		return cn, ch.Audit("connector.request", "connector", cn.ID, map[string]any{"url": cn.URL, "flagged": cn.Flagged})
	})
	return out, err
}

func (s *Service) loadConnector(id string) (*axp.Connector, error) {
	var cn *axp.Connector
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		cn, err = tx.Connector(id)
		return err
	})
	if err == nil && cn == nil {
		err = axp.NotFound("connector request", id)
	}
	return cn, err
}

// liveConnector is the live connector with this tool name.
func (s *Service) liveConnector(name string) (*axp.Connector, error) {
	var cn *axp.Connector
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		cn, err = tx.ConnectorByName(name)
		return err
	})
	if err == nil && (cn == nil || cn.Status != axp.ConnectorLive) {
		err = axp.NotFound("live connector", name).WithHint("GET /paid lists the tools")
	}
	return cn, err
}

// connectorView adds the addresses a connector is used at.
func (s *Service) connectorView(cn *axp.Connector) *axp.Connector {
	v := *cn
	switch v.Status {
	case axp.ConnectorAccepted:
		v.SetupURL = s.base.BaseURL() + "/api/connectors/" + v.ID + "/setup"
		v.Path = "/paid/connectors/" + v.Name
	case axp.ConnectorLive:
		v.Path = "/paid/connectors/" + v.Name
	}
	return &v
}

func (s *Service) getConnector(ctx context.Context, c *pipeline.Call, in *axp.IDPath) (*axp.Connector, error) {
	cn, err := s.loadConnector(in.ID)
	if err != nil {
		return nil, err
	}
	return s.connectorView(cn), nil
}

// payConnectorSetup answers the paid setup call: the payment's booking makes the connector live
// in the same transaction (paywall.book), so the answer shows it live.
func (s *Service) payConnectorSetup(ctx context.Context, c *pipeline.Call, in *axp.IDPath) (*axp.Connector, error) {
	cn, err := s.loadConnector(in.ID)
	if err != nil {
		return nil, err
	}
	if cn.Status != axp.ConnectorAccepted {
		return nil, axp.Conflict("the connector is "+cn.Status, "")
	}
	cn.Status = axp.ConnectorLive
	return s.connectorView(cn), nil
}

func (s *Service) adminConnectors(ctx context.Context, c *pipeline.Call, in *axp.ConnectorsQuery) (*axp.ConnectorList, error) {
	var list []axp.Connector
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		list, err = tx.Connectors(in.Status)
		return err
	})
	for i := range list {
		list[i] = *s.connectorView(&list[i])
	}
	return &axp.ConnectorList{Connectors: list}, err
}

func (s *Service) adminConnectorAccept(ctx context.Context, c *pipeline.Call, in *axp.ConnectorAccept) (*axp.Connector, error) {
	if in.PriceUSD < axp.MinCallPrice || in.PriceUSD > axp.MaxCallPrice {
		return nil, axp.Invalid("price_usd", "must be between "+axp.MinCallPrice.Display()+" and "+axp.MaxCallPrice.Display(), "")
	}
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Connector, error) {
		cn, err := ch.Tx.Connector(in.ID)
		if err != nil {
			return nil, err
		}
		if cn == nil {
			return nil, axp.NotFound("connector request", in.ID)
		}
		if cn.Status != axp.ConnectorPending {
			return nil, axp.Conflict("the connector is "+cn.Status+"; only a pending request is accepted", "")
		}
		if other, err := ch.Tx.ConnectorByName(in.Name); err != nil || other != nil {
			if err != nil {
				return nil, err
			}
			return nil, axp.Invalid("name", "is the name of another connector ("+other.ID+")", "choose another name")
		}
		// The tag binds x402 v1 payments to one connector (axp.ConnectorV1Tag): two that share it
		// could be paid with each other's payments.
		tag := axp.ConnectorV1Tag(in.Name)
		all, err := ch.Tx.Connectors("")
		if err != nil {
			return nil, err
		}
		for _, other := range all {
			if (other.Status == axp.ConnectorAccepted || other.Status == axp.ConnectorLive) && axp.ConnectorV1Tag(other.Name) == tag {
				return nil, axp.Invalid("name", fmt.Sprintf("has the x402 v1 tag of the connector %s (%s, %d micro-USD)", other.Name, other.ID, int64(tag)),
					"choose another name: x402 v1 payments tell connectors apart by their tag")
			}
		}
		cn.Status, cn.Name, cn.PriceUSD, cn.Category, cn.UpdatedAt = axp.ConnectorAccepted, in.Name, in.PriceUSD, in.Category, ch.Now
		if in.Description != "" {
			cn.Wants = in.Description
		}
		if err := ch.Tx.PutConnector(cn); err != nil {
			return nil, err
		}
		return s.connectorView(cn), ch.Audit("connector.accept", "connector", cn.ID, map[string]any{"name": in.Name, "price_usd": in.PriceUSD})
	})
}

func (s *Service) adminConnectorReject(ctx context.Context, c *pipeline.Call, in *axp.ConnectorReject) (*axp.Connector, error) {
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Connector, error) {
		cn, err := ch.Tx.Connector(in.ID)
		if err != nil {
			return nil, err
		}
		if cn == nil {
			return nil, axp.NotFound("connector request", in.ID)
		}
		if cn.Status != axp.ConnectorPending && cn.Status != axp.ConnectorAccepted {
			return nil, axp.Conflict("the connector is "+cn.Status+"; only a pending or accepted request is rejected", "")
		}
		cn.Status, cn.Reason, cn.UpdatedAt = axp.ConnectorRejected, in.Reason, ch.Now
		if err := ch.Tx.PutConnector(cn); err != nil {
			return nil, err
		}
		return s.connectorView(cn), ch.Audit("connector.reject", "connector", cn.ID, map[string]any{"reason": in.Reason})
	})
}

// connectorMaxAnswer caps what a connector's data source may answer.
const connectorMaxAnswer = 1 << 20

// paidConnector calls a live connector's data source through the guarded outbound caller, passing
// on the call's query keys.
func (s *Service) paidConnector(ctx context.Context, c *pipeline.Call, in *axp.ConnectorCall) (*axp.ConnectorAnswer, error) {
	cn, err := s.liveConnector(in.Name)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(cn.URL)
	if err != nil {
		return nil, axp.Errorf(axp.CodeUnavailable, "the connector's data source address is damaged")
	}
	q := u.Query()
	keys := make([]string, 0, len(in.Params))
	for k := range in.Params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == "trial" {
			continue
		}
		q.Set(k, in.Params[k])
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, axp.Errorf(axp.CodeUnavailable, "the connector's data source cannot be called")
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.5")
	resp, err := s.caller.HTTPClient(20 * time.Second).Do(req)
	if err != nil {
		return nil, axp.Errorf(axp.CodeUnavailable, "the connector's data source did not answer").
			WithHint("nothing was charged; try again later")
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, connectorMaxAnswer+1))
	if err != nil {
		return nil, axp.Errorf(axp.CodeUnavailable, "the connector's data source's answer was cut off")
	}
	if resp.StatusCode >= 500 {
		return nil, axp.Errorf(axp.CodeUnavailable, "the connector's data source failed (HTTP %d)", resp.StatusCode).
			WithHint("nothing was charged; try again later")
	}
	out := &axp.ConnectorAnswer{Connector: cn.Name, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	if len(raw) > connectorMaxAnswer {
		raw, out.Truncated = raw[:connectorMaxAnswer], true
	}
	out.Bytes = len(raw)
	mt, _, _ := mime.ParseMediaType(out.ContentType)
	if !out.Truncated && (mt == "application/json" || strings.HasSuffix(mt, "+json")) && json.Valid(raw) {
		json.Unmarshal(raw, &out.JSON)
	} else if utf8.Valid(raw) {
		out.Text = string(raw)
	} else {
		out.Text = "(binary answer of " + mt + " not shown)"
	}
	return out, nil
}
