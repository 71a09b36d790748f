package axp_test

import (
	"testing"

	"github.com/axp-exchange/axp"
)

func TestOtherSide(t *testing.T) {
	if axp.OtherSide(axp.SideBuyer) != axp.SideSeller || axp.OtherSide(axp.SideSeller) != axp.SideBuyer {
		t.Error("the other side of a buyer is the seller, and of a seller the buyer")
	}
}
