package contract

import (
	"github.com/axp-exchange/axp"
)

// PaidInjectionCheck declares paid_injection_check, POST /paid/text/injection-check.
var PaidInjectionCheck = Define[axp.InjectionCheckInput, axp.InjectionCheckResult](Op{Name: "paid_injection_check", Method: post, Path: "/paid/text/injection-check", Tag: "paid", Access: Paid, Category: "text", Price: 5_000, Summary: "Check a text for prompt injection: verdict, risk score, findings and a cleaned copy, from the exchange's own screening."},
	&axp.InjectionCheckInput{Text: "hello"})

// PaidTradingRisk declares paid_trading_risk, GET /paid/trading/risk.
var PaidTradingRisk = Define[axp.TradingRiskQuery, axp.TradingRiskResult](Op{Name: "paid_trading_risk", Method: get, Path: "/paid/trading/risk", Tag: "paid", Access: Paid, Category: "trading", Price: 2_000, Summary: "Size a position from account, risk percent, entry and stop: units, risk amount, stop distance, exact decimals."},
	&axp.TradingRiskQuery{Account: "10000", RiskPct: "1", Entry: "100", Stop: "95", SizeDecimals: ptr(0)})

// PaidWebContents declares paid_web_contents, POST /paid/web/contents.
var PaidWebContents = Define[axp.WebContentsInput, axp.WebContentsResult](Op{Name: "paid_web_contents", Method: post, Path: "/paid/web/contents", Tag: "paid", Access: Paid, Category: "web", Price: 10_000, Summary: "Fetch up to 10 web pages as readable text with title and final URL; a page that fails does not fail the others."},
	&axp.WebContentsInput{URLs: []axp.WebURL{"https://a.example/x"}})

// PaidWebSearch declares paid_web_search, GET /paid/web/search.
var PaidWebSearch = Define[axp.WebSearchQuery, axp.WebSearchResult](Op{Name: "paid_web_search", Method: get, Path: "/paid/web/search", Tag: "paid", Access: Paid, Category: "web", Price: 10_000, Needs: "search_url", Summary: "Search the web through the exchange's search backend: titles, links and snippets."},
	&axp.WebSearchQuery{Q: "x", Limit: 5, Language: "en", TimeRange: "day"})
