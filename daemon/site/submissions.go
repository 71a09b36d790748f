package site

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/pipeline"
	"github.com/axp-exchange/axp/protocol"
	"github.com/axp-exchange/axp/store"
)

// submit stores a public submission of a kind in one transaction with its audit record.
func (s *Service) submit(ctx context.Context, c *pipeline.Call, kind, prefix string, body any, message string) (*axp.Recorded, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return kernel.Apply(s.base, ctx, c, func(ch *kernel.Change) (*axp.Recorded, error) {
		sub := &store.Submission{ID: axp.NewID(prefix, ch.Now), Actor: c.Caller.Actor(), CreatedAt: ch.Now, Body: raw}
		if err := ch.Tx.PutSubmission(kind, sub); err != nil {
			return nil, err
		}
		if err := ch.Audit(kind+".create", kind, sub.ID, nil); err != nil {
			return nil, err
		}
		return &axp.Recorded{ID: sub.ID, Recorded: true, CreatedAt: ch.Now, Message: message}, nil
	})
}

func (s *Service) submitFeedback(ctx context.Context, c *pipeline.Call, in *axp.Feedback) (*axp.Recorded, error) {
	if strings.TrimSpace(in.Message) == "" {
		return nil, axp.Invalid("message", "must not be blank", "say what you noticed")
	}
	if in.Category == "" {
		in.Category = "other"
	}
	return s.submit(ctx, c, store.KindFeedback, "fbk", in, "Thank you: the operator reads every message.")
}

func (s *Service) paymentPreference(ctx context.Context, c *pipeline.Call, in *axp.PaymentPreference) (*axp.Recorded, error) {
	if strings.TrimSpace(in.Preferred) == "" {
		return nil, axp.Invalid("preferred", "must not be blank", "name the payment option you would like")
	}
	return s.submit(ctx, c, store.KindPaymentPref, "ppr", in, "Recorded. Supported now: crypto (stablecoin) and free.")
}

func (s *Service) registerInterest(ctx context.Context, c *pipeline.Call, in *axp.Interest) (*axp.Recorded, error) {
	in.Type = strings.ToLower(strings.TrimSpace(in.Type))
	if in.Type == "" {
		return nil, axp.Invalid("type", "must not be blank", "name the task type you want, e.g. video")
	}
	// The type is published (demand in GET /api/services) and matched against skills: it is a
	// task type, a slug, or it is refused (hidden characters, look-alike letters, contact details).
	if err := protocol.CheckTaskType("type", in.Type); err != nil {
		return nil, err
	}
	out, err := s.submit(ctx, c, store.KindInterest, "int", in, "Recorded: sellers see the demand for "+in.Type+" in GET /api/services (demand).")
	if err == nil {
		s.catalog.Invalidate()
	}
	return out, err
}

func (s *Service) answerSurvey(ctx context.Context, c *pipeline.Call, in *axp.SurveyAnswer) (*axp.Recorded, error) {
	if strings.TrimSpace(in.Task) == "" {
		return nil, axp.Invalid("task", "must not be blank", "describe the task you would pay a tool for")
	}
	return s.submit(ctx, c, store.KindSurvey, "svy", in, "Thank you. Totals are published at /api/survey/results.")
}

func (s *Service) getPaymentPreference(ctx context.Context, c *pipeline.Call) (*axp.PaymentPreferenceInfo, error) {
	info := &axp.PaymentPreferenceInfo{
		Supported: paymentMethods(),
		Question:  "Which payment option would you like to use on this exchange, besides a US-dollar stablecoin?",
		Options:   []string{"stablecoin on base", "stablecoin on solana", "other crypto", "card", "bank transfer", "other"},
		Totals:    map[string]int{},
	}
	err := s.base.Store.View(func(tx *store.Tx) error {
		return tx.EachSubmission(store.KindPaymentPref, func(sub *store.Submission) bool {
			var p axp.PaymentPreference
			if json.Unmarshal(sub.Body, &p) == nil {
				info.Totals[strings.ToLower(strings.TrimSpace(p.Preferred))]++
			}
			return true
		})
	})
	return info, err
}

func (s *Service) getSurvey(ctx context.Context, c *pipeline.Call) (*axp.SurveyQuestions, error) {
	schema := surveySchemaEnums()
	return &axp.SurveyQuestions{
		Title:    "Which pay-per-call tools would your agent use?",
		SubmitTo: s.base.BaseURL() + "/api/survey",
		Questions: []axp.SurveyQuestion{
			{Field: "task", Question: "What task would your agent pay a tool to do?", Type: "string", Required: true},
			{Field: "category", Question: "Which category fits best?", Type: "string", Options: schema["category"]},
			{Field: "max_usd_per_call", Question: "The most you would pay per call, in USD?", Type: "number"},
			{Field: "calls_per_day", Question: "About how many calls a day?", Type: "integer"},
			{Field: "payment", Question: "How would you pay?", Type: "string", Options: schema["payment"]},
			{Field: "has_wallet", Question: "Does your agent have a wallet?", Type: "boolean"},
			{Field: "missing", Question: "What is missing from the tools you use today?", Type: "string"},
			{Field: "agent_name", Question: "Your agent's name", Type: "string"},
			{Field: "framework", Question: "The framework it is built with", Type: "string"},
		},
	}, nil
}

// surveySchemaEnums reads the allowed values from the survey's schema, so the questions and the
// validation cannot disagree.
func surveySchemaEnums() map[string][]string {
	out := map[string][]string{}
	s := protocol.SchemaFor[axp.SurveyAnswer]()
	for _, f := range []string{"category", "payment"} {
		for _, e := range s.Properties[f].Enum {
			out[f] = append(out[f], e.(string))
		}
	}
	return out
}

func (s *Service) getSurveyResults(ctx context.Context, c *pipeline.Call) (*axp.SurveyResults, error) {
	res := &axp.SurveyResults{ByCategory: map[string]int{}, ByPayment: map[string]int{}, HasWallet: map[string]int{}, UpdatedAt: s.base.Now()}
	var maxes []axp.Money
	err := s.base.Store.View(func(tx *store.Tx) error {
		return tx.EachSubmission(store.KindSurvey, func(sub *store.Submission) bool {
			var a axp.SurveyAnswer
			if json.Unmarshal(sub.Body, &a) != nil {
				return true
			}
			res.Responses++
			if a.Category != "" {
				res.ByCategory[a.Category]++
			}
			if a.Payment != "" {
				res.ByPayment[a.Payment]++
			}
			if a.HasWallet != nil {
				if *a.HasWallet {
					res.HasWallet["yes"]++
				} else {
					res.HasWallet["no"]++
				}
			}
			if a.MaxUSDPerCall != nil {
				maxes = append(maxes, *a.MaxUSDPerCall)
			}
			if a.CallsPerDay != nil {
				res.TotalCallsPerDay += int64(*a.CallsPerDay)
			}
			return true
		})
	})
	if len(maxes) > 0 {
		sort.Slice(maxes, func(i, j int) bool { return maxes[i] < maxes[j] })
		m := maxes[len(maxes)/2]
		if len(maxes)%2 == 0 {
			m = (maxes[len(maxes)/2-1] + maxes[len(maxes)/2]) / 2
		}
		res.MedianMaxUSDPerCall = &m
	}
	return res, err
}
