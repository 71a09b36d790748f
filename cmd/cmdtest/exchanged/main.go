// Command exchanged is the helper process of cmdtest.NewExchange: it serves a test exchange
// (inproc.Config over the data dir given) on loopback, prints its URL on a line of its own, and
// stops the exchange when its standard input ends. Only tests run it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/axp-exchange/axp/cmd/cmdtest/inproc"
)

func main() {
	dir := flag.String("data-dir", "", "the exchange's data dir")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "exchanged: -data-dir is required")
		os.Exit(2)
	}
	s, err := inproc.Serve(inproc.Config(*dir))
	if err != nil {
		fmt.Fprintln(os.Stderr, "exchanged:", err)
		os.Exit(1)
	}
	fmt.Println(s.URL)
	io.Copy(io.Discard, os.Stdin)
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "exchanged:", err)
		os.Exit(1)
	}
}
