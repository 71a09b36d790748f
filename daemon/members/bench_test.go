package members_test

import (
	"fmt"
	"testing"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/screening"
)

// BenchmarkRegister is one registration on an exchange that already has N members: the
// look-alike check of the new name must not read every member.
func BenchmarkRegister(b *testing.B) {
	for _, n := range []int{100, 1000, 3000} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			f := kerneltest.New(b, func(c *kernel.Config) { c.RegistrationsPerHour = 1 << 30 })
			members.New(f.K.Base(), screening.New(f.K.Base(), f.K), f.K, f.K, f.K.Caller, f.K.Keys).Register(f.Reg)
			reg := func(i int) {
				ip := fmt.Sprintf("198.51.%d.%d", i/250%250, i%250)
				_, err := kerneltest.Call(b, f.Reg, contract.Register, axp.Caller{Kind: axp.Anonymous, IP: ip},
					&axp.Registration{Roles: []string{"buyer"}, Name: fmt.Sprintf("Member %c%d", 'a'+i%26, i)})
				if err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; i < n; i++ {
				reg(i)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				reg(n + i)
			}
		})
	}
}
