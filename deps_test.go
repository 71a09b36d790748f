package axp_test

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/axp-exchange/axp"

// TestDependencyGraph keeps the package graph of docs/architecture.md ("Packages and layers")
// honest: it lists the transitive (non-test) dependencies of every package of the module and fails
// on a forbidden edge.
func TestDependencyGraph(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-e", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{} // package (relative to the module, "." for the root) -> project deps
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := rel(fields[0])
		var own []string
		for _, d := range fields[1:] {
			if d == module || strings.HasPrefix(d, module+"/") {
				own = append(own, rel(d))
			}
		}
		sort.Strings(own)
		deps[pkg] = own
	}
	for _, must := range []string{".", "protocol", "store"} {
		if _, ok := deps[must]; !ok {
			t.Fatalf("go list did not report package %q; got %v", must, keys(deps))
		}
	}

	for pkg, ds := range deps {
		for _, d := range ds {
			if why := forbidden(pkg, d); why != "" {
				t.Errorf("forbidden edge %s -> %s: %s", pkg, d, why)
			}
		}
	}
}

// under reports whether pkg is dir or inside it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// forbidden says why the edge pkg -> dep (module-relative paths, "." for the root) is not allowed,
// or "" when it is.
func forbidden(pkg, dep string) string {
	switch {
	case under(pkg, "protocol"):
		return "protocol is a leaf: it imports no project package"
	case pkg == "." && dep != "protocol":
		return "the domain package imports only protocol"
	case pkg == "contract" && dep != "." && dep != "protocol":
		return "the contract (the operations' declarations) imports only the domain package and protocol"
	case under(pkg, "api") && dep != "." && dep != "protocol" && dep != "contract" && !under(dep, "api"):
		return "api, the one HTTP client of the exchange, imports only the domain package, the contract and protocol"
	case under(pkg, "store") && (under(dep, "daemon") || under(dep, "client") || under(dep, "cmd") || under(dep, "memberkit") || under(dep, "tui")):
		return "store knows nothing of daemon, client, cmd, memberkit or tui"
	case under(pkg, "memberkit") && (under(dep, "daemon") || under(dep, "store") || under(dep, "client") || under(dep, "tui")):
		return "memberkit is for third parties: it imports neither daemon, store, client nor tui"
	case under(pkg, "client") && (under(dep, "daemon") || under(dep, "store")):
		return "client talks to a daemon over HTTP only"
	case !under(pkg, "cmd") && under(dep, "cmd"):
		return "nothing but cmd imports cmd"
	case !under(pkg, "cmd") && !under(pkg, "daemon") && under(dep, "daemon"):
		return "nothing but cmd imports daemon"
	case under(pkg, "daemon/kernel") && serviceLayer[dep] > 0:
		return "the kernel knows no service"
	case under(pkg, "daemon/kernel") && under(dep, "daemon/screening"):
		return "the kernel knows nothing of screening: the services are handed it in their New"
	case under(pkg, "daemon/screening") && (serviceLayer[dep] > 0 || dep == "daemon"):
		return "screening knows no service: every service may use it"
	case serviceLayer[pkg] > 0 && dep == "daemon":
		return "a service never imports the daemon's wiring"
	case serviceLayer[pkg] > 0 && serviceLayer[dep] >= serviceLayer[pkg]:
		return "a service imports only services of lower layers; it reacts to a higher one through a typed event"
	}
	return ""
}

// serviceLayer orders the daemon's services: each imports the kernel and only services of lower
// layers, so no two services call each other both ways.
var serviceLayer = map[string]int{
	"daemon/members": 1, "daemon/money": 1, "daemon/recorded": 1, "daemon/board": 1, "daemon/operator": 1,
	"daemon/trust": 2, "daemon/paid": 2,
	"daemon/tasks": 3,
	"daemon/site":  4, "daemon/talk": 4,
}

// The rules themselves: a checker that allows everything would pass the test above.
func TestForbiddenEdges(t *testing.T) {
	cases := []struct {
		pkg, dep string
		bad      bool
	}{
		{"protocol", ".", true},
		{"protocol", "store", true},
		{".", "protocol", false},
		{".", "store", true},
		{".", "daemon", true},
		{"store", ".", false},
		{"store", "protocol", false},
		{"store", "daemon", true},
		{"store", "client", true},
		{"store", "memberkit", true},
		{"store", "tui", true},
		{"store", "cmd/serve", true},
		{"memberkit", "protocol", false},
		{"memberkit", ".", false},
		{"memberkit", "daemon/rest", true},
		{"memberkit", "store", true},
		{"memberkit", "client", true},
		{"memberkit", "tui", true},
		{"api", ".", false},
		{"api", "protocol", false},
		{"api", "client", true},
		{"api", "memberkit", true},
		{"api", "daemon", true},
		{"api", "store", true},
		{"memberkit", "api", false},
		{"client", "api", false},
		{"client", "protocol", false},
		{"client", "daemon", true},
		{"client", "store", true},
		{"tui", "client", false},
		{"tui", "daemon", true},
		{"tui", "cmd", true},
		{"daemon", "daemon/rest", false},
		{"daemon", "daemon/tasks", false},
		{"daemon/kernel", "daemon/tasks", true},
		{"daemon/kernel", "daemon/screening", true},
		{"daemon/screening", "daemon/kernel", false},
		{"daemon/screening", "daemon/screen", false},
		{"daemon/screening", "daemon/members", true},
		{"daemon/screening", "daemon", true},
		{"daemon/members", "daemon/screening", false},
		{"daemon/kernel", "store", false},
		{"daemon/tasks", "daemon/kernel", false},
		{"daemon/tasks", "daemon/money", false},
		{"daemon/money", "daemon/tasks", true},
		{"daemon/trust", "daemon/tasks", true},
		{"daemon/members", "daemon/money", true},
		{"daemon/board", "daemon", true},
		{"daemon", "store", false},
		{"daemon", "cmd/config", true},
		{"daemon/rest", "cmd", true},
		{"cmd", "daemon", false},
		{"cmd/serve", "daemon", false},
		{"cmd/axp", "cmd", false},
		{"cmd", "tui", false},
	}
	for _, c := range cases {
		if got := forbidden(c.pkg, c.dep) != ""; got != c.bad {
			t.Errorf("%s -> %s: forbidden %v, want %v", c.pkg, c.dep, got, c.bad)
		}
	}
}

// TestNoInternalTests keeps the edit-test loop short (docs/style.md, "Tests"): a package with an
// internal test file (package x, not x_test) is compiled a second time with its tests, and so is
// every package of its test binary that imports it, after each edit below them. The kernel, the
// services and the packages under them test from outside; elsewhere under daemon an internal test
// file is fine while no other package of its test binary imports the package it tests.
func TestNoInternalTests(t *testing.T) {
	for _, line := range goList(t, "-f", `{{.ImportPath}}{{range .TestGoFiles}} {{.}}{{end}}`, module+"/daemon/...") {
		fields := strings.Fields(line)
		pkg := rel(fields[0])
		for _, dir := range externalTestsOnly {
			if under(pkg, dir) && len(fields) > 1 {
				t.Errorf("%s has internal test files %v: test it from package %s_test (move a pure helper under test to a package of its own)",
					pkg, fields[1:], pkg[strings.LastIndex(pkg, "/")+1:])
			}
		}
	}
	// go list -test names a package compiled again for a test binary "pkg [tested.test]".
	for _, line := range goList(t, "-test", "-deps", module+"/daemon/...") {
		pkg, bin, ok := strings.Cut(line, " [")
		if !ok {
			continue
		}
		pkg, bin = rel(pkg), rel(strings.TrimSuffix(bin, ".test]"))
		if pkg != bin && pkg != bin+"_test" && internalTestsAllowed[bin] == "" {
			t.Errorf("the internal tests of %s compile %s again for its test binary: test %s from package %s_test", bin, pkg, bin, bin[strings.LastIndex(bin, "/")+1:])
		}
	}
}

// externalTestsOnly are the packages, with those under them, that have no internal test file.
var externalTestsOnly = func() []string {
	dirs := []string{"daemon/kernel", "daemon/screening"}
	for s := range serviceLayer {
		dirs = append(dirs, s)
	}
	return dirs
}()

// internalTestsAllowed are the packages whose internal tests compile other packages again, and why.
var internalTestsAllowed = map[string]string{
	"daemon":        "export_test.go lends the daemon's black-box tests its internals; cmd/cmdtest, which imports the daemon, compiles again for them",
	"daemon/screen": "its tests read the detectors' unexported rules; screen/injection and screen/listing, below the kernel, compile again for them",
}

// goList runs go list with args and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, append([]string{"list", "-e"}, args...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func rel(p string) string {
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
