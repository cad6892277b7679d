# The two commands that matter: `make run` serves the API on the embedded
# default, `make test` runs every test. See README.md.

GO        ?= go
BIN       := bin
FUZZTIME  ?= 30s
BENCHTIME ?= 5s
BENCH_OUT ?= bench/out/report.md
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: run test lint build bench bench-go bench-ingest fuzz clean tools-bench

## run: all-in-one service (embedded NATS + sample data + API on :8080)
run:
	$(GO) run ./cmd/zoneprice --log-format text

## test: every test, with the race detector
test:
	$(GO) test -race -count=1 ./...

## lint: go vet and staticcheck
lint:
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

REVISION  := $(shell git rev-parse --short HEAD 2>/dev/null)
LDFLAGS   := -X github.com/zoneprice/zoneprice/cmd/internal/app.revision=$(REVISION)

## build: static binaries in bin/
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

## bench: the benchmark report (wrk on loopback; installs wrk when missing)
bench: tools-bench build
	$(BIN)/zoneprice-bench -duration $(BENCHTIME) -out $(BENCH_OUT)

## bench-go: Go micro-benchmarks (rendering, parsing)
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-ingest: parsing and diffing a 1,000-zone price list, against a
## plain encoding/json decode of the same bytes in the same run
bench-ingest:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./ingest/porkbun/

tools-bench:
	@command -v wrk >/dev/null 2>&1 || { \
		echo "installing wrk from Debian's packages"; \
		(apt-get update -qq && apt-get install -y -qq wrk) >/dev/null || \
		{ echo "could not install wrk; install it and rerun make bench" >&2; exit 1; }; }

## fuzz: run each fuzz target for FUZZTIME
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "fuzz $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

clean:
	rm -rf $(BIN) bench/out
