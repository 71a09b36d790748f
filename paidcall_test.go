package axp_test

import (
	"fmt"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
)

// The x402 v1 tags bind v1 payments to their tool: distinct, well under a cent, below every price,
// and stable (a client holding a tool's 402 terms keeps paying the same amount across releases).
func TestV1Tags(t *testing.T) {
	// Pinned: reordering the catalog's paid tools would change what v1 clients must pay.
	for name, want := range map[string]axp.Money{"paid_injection_check": 1, "paid_trading_risk": 2, "paid_web_contents": 3,
		"paid_web_search": 4, "paid_market_as_of": 5, "paid_trackrecord_verify": 11} {
		if got := contract.V1Tag(name); got != want {
			t.Errorf("V1Tag(%s) = %d, want %d", name, got, want)
		}
	}
	seen := map[axp.Money]string{}
	for i := range contract.Ops {
		op := contract.Ops[i]
		tag := contract.V1Tag(op.Name)
		if op.Access != contract.Paid || op.Category == "" || op.Name == "paid_connector" {
			if tag != 0 {
				t.Errorf("%s is not a catalog tool and has tag %d", op.Name, tag)
			}
			continue
		}
		if tag < 1 || tag >= 100 || tag >= op.Price || seen[tag] != "" {
			t.Errorf("%s: tag %d (seen on %q), price %d", op.Name, tag, seen[tag], op.Price)
		}
		seen[tag] = op.Name
	}
	// Connectors' tags lie above the catalog's, up to V1TagMax, under the smallest price.
	for i := range 2000 {
		tag := axp.ConnectorV1Tag(fmt.Sprintf("conn-%d", i))
		if tag < 100 || tag > axp.V1TagMax || tag >= axp.MinCallPrice {
			t.Fatalf("connector tag %d", tag)
		}
	}
	if axp.ConnectorV1Tag("stable-prices") != axp.ConnectorV1Tag("stable-prices") {
		t.Fatal("a connector's tag changes")
	}
}
