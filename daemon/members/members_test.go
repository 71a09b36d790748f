package members_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/contract"
	"github.com/axp-exchange/axp/daemon/kernel/kerneltest"
	"github.com/axp-exchange/axp/daemon/members"
	"github.com/axp-exchange/axp/daemon/screening"
	"github.com/axp-exchange/axp/store"
)

func newMembers(t *testing.T) *kerneltest.Fixture {
	f := kerneltest.New(t)
	members.New(f.K.Base(), screening.New(f.K.Base(), f.K), f.K, f.K, f.K.Caller, f.K.Keys).Register(f.Reg)
	return f
}

var anonymous = axp.Caller{Kind: axp.Anonymous, IP: "192.0.2.1"}

func register(t *testing.T, f *kerneltest.Fixture, name string) *axp.Registered {
	t.Helper()
	out, err := kerneltest.Call(t, f.Reg, contract.Register, anonymous, &axp.Registration{Roles: []string{"buyer"}, Name: name,
		ContactEmail: "ops@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRegisterThenGetMyProfile(t *testing.T) {
	f := newMembers(t)
	reg := register(t, f, "Tide Reader")
	if reg.MemberSecret == "" || reg.PlatformKey == "" || reg.Member.Name != "Tide Reader" {
		t.Fatalf("registered %+v", reg)
	}
	var m *axp.Member
	var audit []axp.AuditRecord
	f.View(t, func(tx *store.Tx) (err error) {
		if m, err = tx.Member(reg.MemberID); err != nil {
			return err
		}
		audit, err = tx.AuditRecords(axp.AuditQuery{EntityID: reg.MemberID})
		return err
	})
	if m == nil || !m.CreatedAt.Equal(kerneltest.Start) || m.SecretHash == "" {
		t.Fatalf("stored %+v", m)
	}
	if len(audit) != 1 || audit[0].Action != "member.register" {
		t.Fatalf("audit %+v", audit)
	}

	f.Clock.Add(time.Hour)
	me, err := kerneltest.Call(t, f.Reg, contract.GetMyProfile, f.Member(t, reg.MemberSecret), nil)
	if err != nil || me.ID != reg.MemberID || me.ContactEmail != "ops@example.com" {
		t.Fatalf("get_my_profile: %+v, %v", me, err)
	}
	_, err = kerneltest.Call(t, f.Reg, contract.GetMyProfile, anonymous, nil)
	kerneltest.Err(t, err, axp.CodeUnauthorized)
}

func TestRegisterNamesTheBadField(t *testing.T) {
	f := newMembers(t)
	for _, c := range []struct {
		in    axp.Registration
		field string
	}{
		{axp.Registration{Roles: []string{"buyer"}, Name: "   "}, "name"},
		{axp.Registration{Roles: []string{"buyer"}, Name: "Tide Reader", PayoutAddress: "0x12"}, "payout_address"},
		{axp.Registration{Roles: []string{"seller"}, Name: "Tide Reader", PaymentMethods: []string{"cash"}}, "payment_methods[0]"},
		{axp.Registration{Roles: []string{"buyer"}, Name: "Tide", Identity: &axp.Identity{OperatorName: "a\u202eb"}}, "identity.operator_name"},
	} {
		_, err := kerneltest.Call(t, f.Reg, contract.Register, anonymous, &c.in)
		if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != c.field {
			t.Errorf("%+v: refusal names %q, not %s (%s)", c.in, e.Field, c.field, e.Message)
		}
	}
	var n int
	f.View(t, func(tx *store.Tx) error { return tx.EachMember(func(*axp.Member) bool { n++; return true }) })
	if n != 0 {
		t.Fatalf("%d members stored after refusals", n)
	}
}

func TestRegisterRefusesANameThatReadsLikeAnother(t *testing.T) {
	f := newMembers(t)
	register(t, f, "Tide Reader")
	_, err := kerneltest.Call(t, f.Reg, contract.Register, anonymous, &axp.Registration{Roles: []string{"buyer"}, Name: "Tide Reader"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); e.Field != "name" {
		t.Fatalf("refusal names %q", e.Field)
	}
}

// A name is checked against the members filed under its keys, and the index follows renames. A
// database whose members were stored before the index (or under another revision of the keys) is
// filed again, from every member, by the first registration.
func TestNameIndexFollowsRegistrationsAndRenames(t *testing.T) {
	f := newMembers(t)
	// Stored as an older database holds them: members, and no name index.
	older := axp.NewMember("mem_older", &axp.Registration{Roles: []string{"buyer"}, Name: "Harbor Clerk"}, kerneltest.Start)
	f.Update(t, func(tx *store.Tx) error { return tx.PutMember(older) })

	_, err := kerneltest.Call(t, f.Reg, contract.Register, anonymous, &axp.Registration{Roles: []string{"buyer"}, Name: "HARBOR CLERK"})
	if e := kerneltest.Err(t, err, axp.CodeInvalidInput); !strings.Contains(e.Message, `"Harbor Clerk"`) {
		t.Fatalf("refusal %q does not name the member stored before the index", e.Message)
	}
	filed := func(name string) []string {
		var ids []string
		f.View(t, func(tx *store.Tx) error {
			if tx.MemberNamesRev() != screening.NameKeysRev {
				t.Errorf("index revision %q, want %q", tx.MemberNamesRev(), screening.NameKeysRev)
			}
			for _, k := range screening.NameKeys(name) {
				ids = append(ids, tx.MembersNamed(k)...)
			}
			return nil
		})
		return ids
	}
	reg := register(t, f, "Tide Reader") // a refused registration files nothing; this one keeps the fill
	if got := filed("harbor clerk"); !slices.Equal(got, []string{"mem_older", "mem_older"}) {
		t.Fatalf("filed under harbor clerk: %v", got)
	}
	if _, err := kerneltest.Call(t, f.Reg, contract.UpdateProfile, f.Member(t, reg.MemberSecret),
		&axp.ProfileUpdate{Name: ptr("Sea Glass")}); err != nil {
		t.Fatal(err)
	}
	if got := filed("Tide Reader"); len(got) != 0 {
		t.Fatalf("the old name is still filed: %v", got)
	}
	if got := filed("sea glass"); !slices.Equal(got, []string{reg.MemberID, reg.MemberID}) {
		t.Fatalf("filed under sea glass: %v", got)
	}
	register(t, f, "Tide Reader") // free again
	_, err = kerneltest.Call(t, f.Reg, contract.Register, anonymous, &axp.Registration{Roles: []string{"buyer"}, Name: "S\u0435a Glass"})
	kerneltest.Err(t, err, axp.CodeInvalidInput)
	// Renaming to one's own name, or a look-alike of it, is no clash.
	if _, err := kerneltest.Call(t, f.Reg, contract.UpdateProfile, f.Member(t, reg.MemberSecret),
		&axp.ProfileUpdate{Name: ptr("SEA GLASS")}); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }
