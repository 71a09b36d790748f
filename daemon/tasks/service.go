package tasks

import (
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/money"
	"github.com/axp-exchange/axp/daemon/trust"
)

// Service is the tasks service.
type Service struct {
	*kernel.Kernel
	members *members.Service
	money   *money.Service
	trust   *trust.Service
}

// New returns the service over the kernel k and the services it uses.
func New(k *kernel.Kernel, members *members.Service, money *money.Service, trust *trust.Service) *Service {
	return &Service{Kernel: k, members: members, money: money, trust: trust}
}
