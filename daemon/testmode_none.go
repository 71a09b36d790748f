//go:build notestmode

package daemon

import (
	"context"
	"errors"
	"log/slog"
)

// openTestChain refuses: this binary was built without test mode's chain (go build -tags
// notestmode), which leaves go-ethereum's node out of it.
func openTestChain(context.Context, string, string, *slog.Logger) (testChain, TestChainInfo, error) {
	return nil, TestChainInfo{}, errors.New("this axp was built without test mode (go build -tags notestmode): build it without the tag, or run make run from a checkout")
}
