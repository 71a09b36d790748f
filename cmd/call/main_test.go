package call_test

import (
	"testing"

	"github.com/axp-exchange/axp/cmd/cmdtest"
)

// TestMain removes the exchange helper the tests built, if they built one.
func TestMain(m *testing.M) { cmdtest.Main(m) }
