package daemon

import (
	"net/http"
	"sync"

	"github.com/axp-exchange/axp/daemon/board"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/mcp"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/operator"
	"github.com/axp-exchange/axp/daemon/paid"
	"github.com/axp-exchange/axp/daemon/recorded"
	"github.com/axp-exchange/axp/daemon/rest"
	"github.com/axp-exchange/axp/daemon/site"
	"github.com/axp-exchange/axp/daemon/talk"
	"github.com/axp-exchange/axp/daemon/tasks"
	"github.com/axp-exchange/axp/daemon/trust"
)

// Daemon is a running exchange.
type Daemon struct {
	*kernel.Kernel
	rest     *rest.Server
	handler  http.Handler
	mcp      *mcp.Server
	stopOnce sync.Once
	packMu   sync.Mutex // held by the packing pass under way
	board    *board.Service
	members  *members.Service
	money    *money.Service
	operator *operator.Service
	paid     *paid.Service
	recorded *recorded.Service
	site     *site.Service
	talk     *talk.Service
	tasks    *tasks.Service
	trust    *trust.Service
}
