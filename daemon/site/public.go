package site

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/daemon/rest"
	"github.com/axp-exchange/axp/daemon/trust"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// Register binds the operations of the site service to their handlers.
func (s *Service) Register(r *pipeline.Registry) {
	pipeline.HandleNoInput(r, contract.GetFrontDoor, s.frontDoor)
	pipeline.HandleNoInput(r, contract.Health, s.health)
	pipeline.HandleNoInput(r, contract.Ready, s.ready)
	pipeline.HandleNoInput(r, contract.GetProtocol, s.getProtocol)
	pipeline.HandleNoInput(r, contract.GetMemberTools, s.getMemberTools)
	pipeline.HandleNoInput(r, contract.GetJoin, s.getJoin)
	pipeline.HandleNoInput(r, contract.GetServicesPage, s.getServicesPage)
	pipeline.HandleNoInput(r, contract.GetWhy, s.getWhy)
	pipeline.HandleNoInput(r, contract.ListServices, s.listServices)
	pipeline.HandleNoInput(r, contract.GetPricing, s.getPricing)
	pipeline.HandleNoInput(r, contract.GetFAQ, s.getFAQ)
	pipeline.HandleNoInput(r, contract.GetFAQMarkdown, s.getFAQMarkdown)
	pipeline.Handle(r, contract.Search, s.search)
	pipeline.Handle(r, contract.ListSellers, s.listSellers)
	pipeline.Handle(r, contract.GetQuote, s.getQuote)
	pipeline.Handle(r, contract.GetReputation, s.getReputation)
	pipeline.Handle(r, contract.SubmitFeedback, s.submitFeedback)
	pipeline.HandleNoInput(r, contract.GetPaymentPreference, s.getPaymentPreference)
	pipeline.Handle(r, contract.PaymentPreferenceOp, s.paymentPreference)
	pipeline.Handle(r, contract.RegisterInterest, s.registerInterest)
	pipeline.HandleNoInput(r, contract.GetSurvey, s.getSurvey)
	pipeline.Handle(r, contract.AnswerSurvey, s.answerSurvey)
	pipeline.HandleNoInput(r, contract.GetSurveyResults, s.getSurveyResults)
	pipeline.HandleNoInput(r, contract.GetOpenAPI, s.getOpenAPI)
}

func (s *Service) health(ctx context.Context, c *pipeline.Call) (*axp.OK, error) {
	return &axp.OK{OK: true, Message: "axp exchange is up"}, nil
}

// readyWait bounds each readiness check: a store or node slower than that is not ready.
const readyWait = time.Second

// ready answers 200 when the store answers a trivial query within readyWait and, with a chain
// configured, the node gives its head; otherwise 503 unavailable saying which did not answer.
func (s *Service) ready(ctx context.Context, c *pipeline.Call) (*axp.OK, error) {
	ctx, cancel := context.WithTimeout(ctx, readyWait)
	defer cancel()
	if err := s.base.Store.Ping(ctx); err != nil {
		return nil, pipeline.NotReady("not ready: the store is unreachable: "+err.Error(), err)
	}
	if err := s.catalog.ChainReady(ctx); err != nil {
		return nil, pipeline.NotReady("not ready: the chain node does not answer: "+err.Error(), err)
	}
	return &axp.OK{OK: true, Message: "axp exchange is ready"}, nil
}

func (s *Service) getMemberTools(ctx context.Context, c *pipeline.Call) (*protocol.ToolsDocument, error) {
	tools := protocol.Tools()
	return &tools, nil
}

// sharedCacheTTL is how long a daemon on a shared (PostgreSQL) store keeps the services list: the
// other daemons' member changes do not reset it.
const sharedCacheTTL = 2 * time.Second

func (s *Service) serviceEntry(svc *axp.Service) axp.ServiceEntry {
	return axp.ServiceEntry{Type: svc.Type, Name: svc.Name, Summary: svc.Summary, Params: svc.Params, ParamsSchema: svc.ParamsSchema(),
		AcceptanceCriteria: svc.AcceptanceCriteria, ETAMinutes: svc.ETAMinutes, Pricing: svc.Pricing, ExampleQuoteURL: svc.ExampleURL(s.base.BaseURL())}
}

// listServices answers from a cached list, rebuilt after any member or skill change.
func (s *Service) listServices(ctx context.Context, c *pipeline.Call) (*axp.ServiceList, error) {
	cached, at := s.catalog.CachedServices()
	if cached != nil && s.base.Store.IsPostgres() && s.base.Now().Sub(at) > sharedCacheTTL {
		// Another daemon may have changed a member: on a shared store the cache is short-lived.
		cached = nil
	}
	if cached != nil {
		return cached, nil
	}
	list := &axp.ServiceList{Currency: "USD", Services: make([]axp.ServiceEntry, 0, len(axp.Services))}
	for _, svc := range axp.Services {
		list.Services = append(list.Services, s.serviceEntry(svc))
	}
	offer, err := s.members.OnOffer()
	if err != nil {
		return nil, err
	}
	list.OnOffer = offer
	if list.Demand, err = s.demand(offer); err != nil {
		return nil, err
	}
	// Encoded once: every call until the next change answers the same bytes.
	if err := list.Seal(); err != nil {
		return nil, err
	}
	s.catalog.CacheServices(list)
	return list, nil
}

// demandWindow is how far back interest registrations count as demand.
const demandWindow = 30 * 24 * time.Hour

// demand summarises what buyers asked for with POST /api/interest in the last 30 days, so sellers
// see where a skill would find buyers; offer gives the providers of each type.
func (s *Service) demand(offer []axp.OnOffer) ([]axp.Demand, error) {
	since := s.base.Now().Add(-demandWindow)
	type agg struct {
		n       int
		budgets []axp.Money
	}
	by := map[string]*agg{}
	err := s.base.Store.View(func(tx *store.Tx) error {
		return tx.EachSubmission(store.KindInterest, func(sub *store.Submission) bool {
			if sub.CreatedAt.Before(since) {
				return true
			}
			var in axp.Interest
			// Interest recorded before types were held to slugs is not republished.
			if json.Unmarshal(sub.Body, &in) != nil || protocol.CheckTaskType("type", in.Type) != nil {
				return true
			}
			a := by[in.Type]
			if a == nil {
				a = &agg{}
				by[in.Type] = a
			}
			a.n++
			if in.BudgetUSD != nil {
				a.budgets = append(a.budgets, *in.BudgetUSD)
			}
			return true
		})
	})
	providers := map[string]int{}
	for _, o := range offer {
		providers[o.TaskType] = o.Providers
	}
	out := make([]axp.Demand, 0, len(by))
	for typ, a := range by {
		dm := axp.Demand{TaskType: typ, Requests: a.n, Providers: providers[typ]}
		if len(a.budgets) > 0 {
			slices.Sort(a.budgets)
			m := a.budgets[(len(a.budgets)-1)/2]
			dm.MedianBudgetUSD = &m
		}
		out = append(out, dm)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Requests != out[j].Requests {
			return out[i].Requests > out[j].Requests
		}
		return out[i].TaskType < out[j].TaskType
	})
	if len(out) > 50 {
		out = out[:50]
	}
	return out, err
}

func (s *Service) getQuote(ctx context.Context, c *pipeline.Call, in *axp.QuoteQuery) (*axp.CatalogQuote, error) {
	svc := axp.ServiceFor(in.Type)
	if svc == nil {
		return nil, unknownType(in.Type)
	}
	fromQuery := c.FromQuery
	params, err := svc.QuoteParams(in.Params, fromQuery, axp.ParamsField(fromQuery))
	if err != nil {
		return nil, err
	}
	q := svc.Quote(params, s.base.BaseURL())
	q.AlsoSell = s.members.AlsoSell(c.Caller)
	return &q, nil
}

func unknownType(t string) *axp.Error {
	types := make([]string, len(axp.Services))
	for i, s := range axp.Services {
		types[i] = s.Type
	}
	return axp.Invalid("type", fmt.Sprintf("%q is not a catalog service", t),
		"catalog quotes cover: "+strings.Join(types, ", ")+"; any other type can still be posted as a task to get offers")
}

func (s *Service) search(ctx context.Context, c *pipeline.Call, in *axp.SearchQuery) (*axp.SearchResult, error) {
	q := strings.TrimSpace(in.Q)
	if q == "" {
		return nil, axp.Invalid("q", "must not be blank", "describe what you want done")
	}
	res := &axp.SearchResult{Query: q, Services: []axp.ServiceEntry{}, Sellers: []axp.PublicMember{}}
	matches := axp.MatchServices(q)
	for _, svc := range matches {
		res.Services = append(res.Services, s.serviceEntry(svc))
	}
	typ := axp.SuggestType(q)
	if typ != "" {
		st := &axp.SuggestedTask{Type: typ, Description: q, Params: map[string]any{}}
		svcx := axp.ServiceFor(typ)
		switch {
		case svcx != nil && svcx.HasParam("prompt"):
			st.Params["prompt"] = q
		case typ == "translation":
			st.Params["text"] = q
		}
		if svcx != nil {
			if params, err := svcx.Normalize(st.Params, false, "params"); err == nil {
				st.Params = params
				quote := svcx.Quote(params, s.base.BaseURL())
				st.Quote = &quote
				st.CreateURL = quote.CreateURL
			} else {
				res.Questions = append(res.Questions, "The "+typ+" service needs more: "+err.Error())
			}
		}
		if st.CreateURL == "" {
			st.CreateURL = s.base.BaseURL() + "/api/tasks/new?type=" + typ + "&description=" + urlEscape(q)
		}
		res.SuggestedTask = st
	} else {
		res.Questions = []string{
			"What should the result be: a text file, an image, a video, a transcript or a translation?",
			"Any size, length, language or format requirements?",
		}
	}
	sellers, err := s.sellers("", typ, q)
	if err != nil {
		return nil, err
	}
	res.Sellers = sellers
	return res, nil
}

func (s *Service) listSellers(ctx context.Context, c *pipeline.Call, in *axp.SellersQuery) (*axp.SellerList, error) {
	sellers, err := s.sellers(in.PaymentMethod, in.TaskType, "")
	if err != nil {
		return nil, err
	}
	return &axp.SellerList{Sellers: sellers}, nil
}

// sellers lists public records of verified sellers (spec 1.2: sellers are members that passed
// verification; the operator's member list shows the rest). taskType filters by skill; text (a
// search) also matches skill descriptions and names.
func (s *Service) sellers(payment, taskType, text string) ([]axp.PublicMember, error) {
	out := []axp.PublicMember{}
	words := strings.Fields(strings.ToLower(text))
	err := s.base.Store.View(func(tx *store.Tx) error {
		var err error
		// Only verified members are read (the state index), or only the sellers of the type.
		each := func(fn func(m *axp.Member) bool) error { return tx.MembersInState(axp.MemberVerified, fn) }
		if taskType != "" && len(words) == 0 {
			each = func(fn func(m *axp.Member) bool) error { return tx.SellersFor(taskType, fn) }
		}
		serr := each(func(m *axp.Member) bool {
			if !m.HasRole(protocol.RoleSeller) || m.State != axp.MemberVerified {
				return true
			}
			if payment != "" && !m.Accepts(payment) {
				return true
			}
			if taskType != "" || len(words) > 0 {
				if !sellerMatches(m, taskType, words) {
					return true
				}
			}
			var rep axp.Reputation
			if rep, err = trust.Reputation(tx, m); err != nil {
				return false
			}
			out = append(out, m.Public(rep))
			return len(out) < 500
		})
		if err == nil {
			err = serr
		}
		return err
	})
	return out, err
}

func sellerMatches(m *axp.Member, taskType string, words []string) bool {
	for _, s := range m.Skills {
		if taskType != "" && s.TaskType == taskType {
			return true
		}
		desc := strings.ToLower(s.TaskType + " " + s.Description)
		for _, w := range words {
			if len(w) > 3 && strings.Contains(desc, w) {
				return true
			}
		}
	}
	return false
}

func (s *Service) getReputation(ctx context.Context, c *pipeline.Call, in *axp.IDPath) (*axp.Reputation, error) {
	var rep axp.Reputation
	err := s.base.Store.View(func(tx *store.Tx) error {
		m, err := kernel.LoadMember(tx, in.ID)
		if err != nil {
			return err
		}
		rep, err = trust.Reputation(tx, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &rep, nil
}

func (s *Service) getPricing(ctx context.Context, c *pipeline.Call) (*axp.PricingInfo, error) {
	now := s.base.Now()
	bps, window := s.base.Cfg().Fees.At(now)
	info := &axp.PricingInfo{
		Currency: "USD",
		BuyerFee: "Buyers never pay a platform fee: the buyer total is the seller's price.",
		PlatformFee: axp.FeeNow{Percent: percent(bps), BPS: bps, PaidBy: "seller (deducted from the payout)",
			Source: "default rate"},
		Schedule:       s.base.Cfg().Fees.Windows,
		AfterSchedule:  fmt.Sprintf("%s: the promotion rate continues until a new fee is announced in advance", percent(s.base.Cfg().Fees.DefaultBPS)),
		PaymentMethods: paymentMethods(),
		Payouts:        "Sellers are paid in a US-dollar stablecoin to their own wallet; payouts are held until a payout address is added.",
		ApprovalRule:   "Every payout, refund and split is approved by the operator before it is sent.",
	}
	if window != nil {
		info.PlatformFee.Source = window.Name
	}
	info.TestMode = s.base.Cfg().TestMode
	if ci, ok := s.catalog.ChainNames(); ok {
		if s.base.Cfg().TestMode {
			ci.RPCURL = s.base.Cfg().ChainRPCURL
		}
		info.Chain = &ci
	}
	for _, w := range s.base.Cfg().Fees.Windows {
		if w.Name == "launch_promotion" {
			info.Promotion = &axp.Promotion{Name: w.Name, Percent: percent(w.BPS), BPS: w.BPS,
				StartsAt: w.From.UTC().Format("2006-01-02T15:04:05.000Z"), EndsAt: w.Until.UTC().Format("2006-01-02T15:04:05.000Z"),
				PromotionalDays: w.PromotionalDays, Active: !now.Before(w.From) && now.Before(w.Until),
				MayBeExtended: true}
		}
	}
	info.Example = axp.FeeFor(axp.USD(10, 0), bps)
	info.ExampleText = fmt.Sprintf("On a US$10.00 job the buyer pays %s, the platform fee is %s and the seller nets %s.",
		info.Example.BuyerTotal.Display(), info.Example.PlatformFee.Display(), info.Example.SellerNet.Display())
	return info, nil
}

func percent(bps int64) string {
	// bps/100 percent, written with the exact decimal formatter of Money (1 unit = 10,000 micro).
	return axp.Money(bps*10_000).String() + "%"
}

func paymentMethods() []axp.PaymentMethodInfo {
	return []axp.PaymentMethodInfo{
		{Method: axp.PayCrypto, Default: true, Description: "A US-dollar stablecoin paid to the exchange; the job starts when the payment is confirmed."},
		{Method: axp.PayFree, Description: "The seller does the job for US$0; only sellers who opted in quote on free jobs."},
	}
}

func (s *Service) getOpenAPI(ctx context.Context, c *pipeline.Call) (*axp.Result, error) {
	doc := axp.Result(rest.OpenAPI(s.base.BaseURL()))
	return &doc, nil
}

func urlEscape(s string) string { return url.QueryEscape(s) }
