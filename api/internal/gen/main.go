// Command gen writes api/ops_gen.go, and client/ops_gen.go which re-exports its endpoints, from the
// operation catalog (axp.Ops): `go generate ./api`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/axp-exchange/axp"
	"github.com/axp-exchange/axp/api/internal/opsgen"
)

func main() {
	out := flag.String("o", "ops_gen.go", "the file of the endpoints to write")
	reexport := flag.String("reexport", "", "the file re-exporting them to write (none if empty)")
	flag.Parse()
	write(*out, opsgen.Generate)
	if *reexport != "" {
		write(*reexport, opsgen.Reexport)
	}
}

func write(file string, gen func([]*axp.Op) ([]byte, error)) {
	src, err := gen(axp.Ops)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(file, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
