package contract

import (
	"sync"

	"github.com/axp-exchange/axp"
)

// V1Tag is what an x402 v1 payment for one call of the catalog's pay-per-call tool takes off its
// price: 1 + the tool's place among them in the catalog's order (a new tool is appended to the
// catalog, so the tags of the others never change), or 0 when tool is not one of them (a connector's
// tag is ConnectorV1Tag).
func V1Tag(tool string) axp.Money { return v1Tags()[tool] }

// v1Tags numbers the catalog's pay-per-call tools once (V1Tag is asked on every paid call).
var v1Tags = sync.OnceValue(func() map[string]axp.Money {
	tags := map[string]axp.Money{}
	for i := range Ops {
		op := Ops[i]
		if op.Access == Paid && op.Category != "" && op.Name != "paid_connector" {
			tags[op.Name] = axp.Money(len(tags) + 1)
		}
	}
	return tags
})

// RequestConnector declares request_connector, POST /api/connectors/request.
var RequestConnector = Define[axp.ConnectorRequest, axp.Connector](Op{Name: "request_connector", Method: post, Path: "/api/connectors/request", Tag: "paid", Access: Public, Status: created, Tool: "request_connector", Forbids: true, Summary: "Ask for a connector to a new data source (free); an accepted one costs a flat US$10 setup fee, then pay per call."},
	&axp.ConnectorRequest{URL: "https://a.example/api", Wants: "daily prices"})

// FindPaidTools declares find_paid_tools, GET /paid.
var FindPaidTools = Define[axp.PaidToolsQuery, axp.PaidToolList](Op{Name: "find_paid_tools", Method: get, Path: "/paid", Tag: "paid", Access: Public, Tool: "find_paid_tools", Summary: "The pay-per-call tools: path, parameters, result, price, availability; q and category search them. Also in the x402 Bazaar discovery shape."},
	&axp.PaidToolsQuery{Q: "web", Category: "web"})

// PaidConnector declares paid_connector, GET /paid/connectors/{name}.
var PaidConnector = Define[axp.ConnectorCall, axp.ConnectorAnswer](Op{Name: "paid_connector", Method: get, Path: "/paid/connectors/{name}", Tag: "paid", Access: Paid, Category: "connectors", PriceFrom: PriceConnector, ExtraQuery: "params", Summary: "Call a live connector: its data source answers, through the exchange's guarded caller. Priced per connector."},
	&axp.ConnectorCall{Name: "prices"})

// GetConnector declares get_connector, GET /api/connectors/{id}.
var GetConnector = Define[axp.IDPath, axp.Connector](Op{Name: "get_connector", Method: get, Path: "/api/connectors/{id}", Tag: "paid", Access: Public, Tool: "get_connector", Summary: "A connector request: its status, price and where to pay its setup fee."},
	&axp.IDPath{ID: "con_x"})

// PayConnectorSetup declares pay_connector_setup, POST /api/connectors/{id}/setup.
var PayConnectorSetup = Define[axp.IDPath, axp.Connector](Op{Name: "pay_connector_setup", Method: post, Path: "/api/connectors/{id}/setup", Tag: "paid", Access: Paid, PriceFrom: PriceConnectorSetup, Summary: "Pay an accepted connector's US$10 setup fee with x402; it goes live as a pay-per-call tool."},
	&axp.IDPath{ID: "con_x"})

// AdminConnectors declares admin_connectors, GET /api/admin/connectors.
var AdminConnectors = Define[axp.ConnectorsQuery, axp.ConnectorList](Op{Name: "admin_connectors", Method: get, Path: "/api/admin/connectors", Tag: "admin", Access: AdminAuth, Summary: "Connector requests, newest first."},
	&axp.ConnectorsQuery{Status: "pending"})

// AdminConnectorAccept declares admin_connector_accept, POST /api/admin/connectors/{id}/accept.
var AdminConnectorAccept = Define[axp.ConnectorAccept, axp.Connector](Op{Name: "admin_connector_accept", Method: post, Path: "/api/admin/connectors/{id}/accept", Tag: "admin", Access: AdminAuth, Summary: "Accept a connector request with its tool name and price per call; it goes live once the setup fee is paid."},
	&axp.ConnectorAccept{ID: "con_x", Name: "prices", PriceUSD: 10000, Category: "c", Description: "d"})

// AdminConnectorReject declares admin_connector_reject, POST /api/admin/connectors/{id}/reject.
var AdminConnectorReject = Define[axp.ConnectorReject, axp.Connector](Op{Name: "admin_connector_reject", Method: post, Path: "/api/admin/connectors/{id}/reject", Tag: "admin", Access: AdminAuth, Summary: "Reject a connector request with a reason."},
	&axp.ConnectorReject{ID: "con_x", Reason: "r"})
