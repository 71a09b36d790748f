# axp: the Agent Services Exchange.
# `make run` serves the exchange on its embedded database (`make run ADDR=host:port` on another
# address); `make test` runs every test (the daemon's on bbolt and again on PostgreSQL);
# `make test-short`, while editing, the fast tier (go test -short; the test cache re-runs only what an edit touched).

GO       ?= go
BIN      ?= bin/axp
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/axp-exchange/axp/cmd.Version=$(VERSION)

.PHONY: run test test-short bench lint build release-check interop clean

# ADDR=host:port serves on another address than axp serve's default (127.0.0.1:8420); only the
# command line sets it (an ADDR in the environment is ignored).
ADDR     =

run:
	$(GO) run ./cmd/axp serve --test-mode $(if $(ADDR),--addr $(ADDR))

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/axp

test:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	./scripts/chain-tools
	@# The interop clients install (npm) while the Go tests run; a failed install fails the target.
	@# The daemon tests run a second time with every exchange on PostgreSQL (skipped, saying so,
	@# when PostgreSQL is not installed, unless AXP_REQUIRE_POSTGRES=1).
	@./scripts/interop --install > .interop-install.log 2>&1 & install=$$!; \
	AXP_REQUIRE_CHAIN=1 $(GO) test -count=1 -timeout 10m ./...; status=$$?; \
	if [ "$$AXP_REQUIRE_POSTGRES" = 1 ] || [ -n "$$AXP_POSTGRES_BIN" ] || command -v pg_ctl >/dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then \
		echo "daemon tests on PostgreSQL (AXP_TEST_STORE=postgres):"; \
		AXP_TEST_STORE=postgres AXP_REQUIRE_CHAIN=1 $(GO) test -count=1 -timeout 10m ./daemon || status=1; \
	else echo "PostgreSQL is not installed: the daemon tests ran on bbolt only"; fi; \
	if ! wait $$install; then cat .interop-install.log; echo "interop client install failed"; exit 1; fi; \
	rm -f .interop-install.log; exit $$status
	./scripts/interop

# The edit-test loop: go test -short leaves out PostgreSQL, the anvil and test-mode chains, the money
# model, the end-to-end tests of the built binary and the scripts (make test runs them all); Go's
# test cache answers for the packages an edit did not touch. Compiling and linking the test binaries
# is most of its time: the tag notestmode leaves go-ethereum's node (test mode's chain, which -short
# skips) out of every binary that links the daemon, -w leaves out the debugger's tables,
# CGO_ENABLED=0 links each binary in Go alone, as the releases are built (go-ethereum's secp256k1 in
# Go rather than its C library: no gcc and ld pass over every test binary), and -vet=off leaves vet
# to make test and make lint (go vet ./...). GOGC=400: the compiler and the linker spend about a fifth
# of their time collecting garbage at Go's default (100); at 400 they take about 15% less CPU for
# about 15% more memory (570 MB at the peak).
# The tag shorttier leaves out the few command tests that reach into the daemon (and -short skips
# most of them); the others start each exchange in the helper built first (cmd/cmdtest/exchanged),
# so that their binaries do not link the daemon and an edit to it links one helper instead of them.
test-short:
	@# The helper is replaced only when it changed: the test cache reruns the tests that use it when it is.
	GOGC=400 CGO_ENABLED=0 $(GO) build -tags notestmode -ldflags=-w -o bin/.axp-exchanged.new ./cmd/cmdtest/exchanged
	@cmp -s bin/.axp-exchanged.new bin/axp-exchanged && rm bin/.axp-exchanged.new || mv bin/.axp-exchanged.new bin/axp-exchanged
	AXP_TEST_EXCHANGED=$(CURDIR)/bin/axp-exchanged GOGC=400 CGO_ENABLED=0 $(GO) test -short -vet=off -tags notestmode,shorttier -ldflags=-w ./...

bench:
	./scripts/chain-tools
	$(GO) test -run '^$$' -bench . -benchtime 2s -count 1 ./...

lint:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi

# Validates .goreleaser.yaml and builds every release target; CI runs it after `make test` (the first
# run builds GoReleaser from source, which a user running the tests should not wait for).
release-check:
	./scripts/release-check

# Real outside clients (MCP SDK and conformance, A2A SDK, an OpenAPI 3.1 validator, the x402 clients
# and reference facilitator on anvil) against a real `axp serve`; installs them from npm with the
# pinned versions of interop/package-lock.json.
interop:
	./scripts/interop

clean:
	rm -rf bin dist
