// Command gen writes client/ops_gen.go from the operation catalog (axp.Ops): `go generate ./client`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/client/internal/opsgen"
)

func main() {
	out := flag.String("o", "ops_gen.go", "the file to write")
	flag.Parse()
	src, err := opsgen.Generate(axp.Ops)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
