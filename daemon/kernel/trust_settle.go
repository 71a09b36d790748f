package kernel

import (
	"github.com/axp-exchange/axp"
)

func Other(side string) string {
	if side == axp.SideBuyer {
		return axp.SideSeller
	}
	return axp.SideBuyer
}
