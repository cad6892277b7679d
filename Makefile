# The two commands that matter: `make run` serves the API on the embedded
# default, `make test` runs every test. See README.md.

GO        ?= go
BIN       := bin
FUZZTIME  ?= 30s
BENCHTIME ?= 5s
BENCH_OUT ?= bin/bench/report.md

.PHONY: run test test-unit lint build bench bench-go bench-ingest fuzz clean tools-bench tools-test tools-browser images compose-up compose-down compose-keys

## run: all-in-one service (embedded NATS + sample data + API on :8080)
run:
	$(GO) run ./cmd/zoneprice --log-format text

## test: every test: go vet and staticcheck (lint), the unit and in-process
## tests with the race detector, then the failure suite on real containers
## (test-integration)
test: lint test-unit test-integration

## test-unit: the tests that need no Docker: go test -race ./... (after
## tools-test, since deploy's tests evaluate the alert rules with promtool,
## and tools-browser, since the pages' browser test drives chromium). The
## timeout is per package: query/api also builds the two OpenAPI client
## generators and their clients, about 5 minutes on a cold cache
test-unit: tools-test tools-browser
	$(GO) test -race -count=1 -timeout 25m ./...

## tools-test: promtool, from Debian's prometheus package when it is not on
## PATH; without recommends (no node exporter), and the package's daemon is
## not started where there is no init system (containers, CI)
tools-test:
	@command -v promtool >/dev/null 2>&1 || { \
		echo "installing promtool from Debian's prometheus package"; \
		(apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus) >/dev/null || \
		{ echo "could not install promtool; install Debian's prometheus package and rerun make test" >&2; exit 1; }; }

## tools-browser: chromium, from Debian's package when it is not on PATH,
## for the pages' browser test (query/pages_browser_test.go, chromedp)
tools-browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing chromium from Debian's packages"; \
		(apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium) >/dev/null || \
		{ echo "could not install chromium; install Debian's chromium package and rerun make test" >&2; exit 1; }; }

## lint: go vet and staticcheck (a tool of go.mod: its version pinned in
## go.sum, and run from the module cache once fetched)
lint:
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

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

## bench-ingest: every adapter's parse of its fixture (INWX's 2,200 zones,
## Porkbun's 1,000 with a whole unchanged round on JetStream, each declared
## registrar's; by package: rebel.BenchmarkParse471) against a plain decode of
## the same bytes in the same run (encoding/json; an HTML page's: an
## x/net/html parse, ingesttest.BenchDecodeHTML); prints each parse's median
## time as a ratio of its decode's (target: <= 4)
bench-ingest:
	@$(GO) test -run '^$$' -bench . -benchmem -count 5 ./ingest/... | tee $(BIN)/bench-ingest.txt
	@awk '/^pkg: / { pkg=$$2; sub(/.*\//, "", pkg) } \
		/^Benchmark(Parse|Decode)[0-9]/ { name=$$1; sub(/-[0-9]+$$/, "", name); name=pkg "." name; v[name]=v[name] " " $$3 } \
		END { for (n in v) if (n ~ /Parse/) { d=n; sub(/Parse/, "Decode", d); \
			printf "%s: median %.2f ms, %s median %.2f ms, ratio %.2f (target <= 4)\n", n, med(v[n])/1e6, d, med(v[d])/1e6, med(v[n])/med(v[d]) } } \
		function med(s,   a, n, i, j, t) { n=split(s, a, " "); for (i=1;i<=n;i++) for (j=i+1;j<=n;j++) if (a[j]+0 < a[i]+0) { t=a[i]; a[i]=a[j]; a[j]=t }; return a[int((n+1)/2)] }' $(BIN)/bench-ingest.txt

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

## images: container images zoneprice/{query,ingest,notify,admin,lb,nats-server},
## FROM scratch, tagged $(IMAGE_TAG) and the git revision; nothing is pulled
DOCKER      ?= docker
IMAGE_REPO  ?= zoneprice
IMAGE_TAG   ?= local
IMAGE_REV   := $(or $(REVISION),unknown)
IMAGES_DIR  := $(BIN)/images
# zoneprice-admin is in the list once its command exists.
IMAGE_CMDS  := query ingest notify lb $(if $(wildcard cmd/zoneprice-admin/main.go),admin)
NATS_SERVER_MODULE := github.com/nats-io/nats-server/v2
CA_CERTS    ?= /etc/ssl/certs/ca-certificates.crt
IMAGE_BUILD  = CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS) -s -w'

images:
	@rm -rf $(IMAGES_DIR)
	@set -e; for c in $(IMAGE_CMDS); do \
		mkdir -p $(IMAGES_DIR)/$$c; \
		$(IMAGE_BUILD) -o $(IMAGES_DIR)/$$c/ ./cmd/zoneprice-$$c; \
	done
	cp $(CA_CERTS) $(IMAGES_DIR)/ingest/ca-certificates.crt
	@# The commands that send mail: the CAs of the SMTP relay's TLS, and
	@# the outbox's directory, owned by the images' user, so that a volume
	@# mounted there (deploy/compose) is theirs to write.
	@for c in query notify $(if $(wildcard cmd/zoneprice-admin/main.go),admin); do \
		cp $(CA_CERTS) $(IMAGES_DIR)/$$c/ca-certificates.crt; \
		mkdir -p -m 700 $(IMAGES_DIR)/$$c/outbox; \
	done
	mkdir -p $(IMAGES_DIR)/nats-server/conf $(IMAGES_DIR)/nats-server/data
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $(IMAGES_DIR)/nats-server/nats-server $(NATS_SERVER_MODULE)
	cp deploy/nats/zoneprice-node.conf deploy/nats/accounts.conf deploy/nats/tls.conf $(IMAGES_DIR)/nats-server/conf/
	@set -e; for c in $(IMAGE_CMDS) nats-server; do \
		version=$(IMAGE_REV); \
		if [ $$c = nats-server ]; then version=$$($(GO) list -m -f '{{.Version}}' $(NATS_SERVER_MODULE)); fi; \
		echo "docker build $(IMAGE_REPO)/$$c:$(IMAGE_TAG) $(IMAGE_REPO)/$$c:$(IMAGE_REV)"; \
		$(DOCKER) build -q -f deploy/docker/$$c.Dockerfile \
			--build-arg VERSION=$$version --build-arg REVISION=$(IMAGE_REV) \
			-t $(IMAGE_REPO)/$$c:$(IMAGE_TAG) -t $(IMAGE_REPO)/$$c:$(IMAGE_REV) \
			$(IMAGES_DIR)/$$c >/dev/null; \
	done
	@$(DOCKER) images --filter 'reference=$(IMAGE_REPO)/*:$(IMAGE_TAG)' --format '{{.Repository}}:{{.Tag}}  {{.Size}}'

## compose-up: build the images and start the local cluster in
## deploy/compose (API on http://localhost:8080 through zoneprice-lb);
## COMPOSE_PROFILES=monitoring adds Prometheus (pulled from Docker Hub)
COMPOSE_FILE_PATH := deploy/compose/compose.yaml
COMPOSE_ENV       := deploy/compose/.env
COMPOSE_PROJECT   ?= zoneprice
COMPOSE ?= $(shell $(DOCKER) compose version >/dev/null 2>&1 && echo '$(DOCKER) compose' || echo docker-compose)
# The users of deploy/nats/accounts.conf, by the suffix of their
# ZONEPRICE_NKEY_ variable.
NATS_USERS = $(shell sed -n 's/.*nkey: *\$$ZONEPRICE_NKEY_\([A-Z_]*\).*/\1/p' deploy/nats/accounts.conf)

compose-up: images compose-keys
	$(COMPOSE) -p $(COMPOSE_PROJECT) -f $(COMPOSE_FILE_PATH) up -d

## compose-down: stop the local cluster (its NATS volumes stay; add
## COMPOSE_DOWN_FLAGS=-v to remove them)
compose-down:
	$(COMPOSE) -p $(COMPOSE_PROJECT) -f $(COMPOSE_FILE_PATH) down $(COMPOSE_DOWN_FLAGS)

## compose-keys: an NKey per NATS user for the local cluster, and the
## secret that signs subscription links (ZONEPRICE_SUBSCRIBE_SECRET), in
## deploy/compose/.env (readable by you alone, never committed); a user
## that accounts.conf gained since is added, existing keys are kept
compose-keys:
	@umask 077; set -e; f=$(COMPOSE_ENV); touch $$f; \
	if ! grep -q '^ZONEPRICE_SUBSCRIBE_SECRET=' $$f; then \
		secret=$$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n'); \
		[ $${#secret} -eq 64 ] || { echo "could not make a subscription secret" >&2; exit 1; }; \
		echo "ZONEPRICE_SUBSCRIBE_SECRET=$$secret" >> $$f; \
		echo "added the subscription secret to $$f"; \
	fi; \
	for u in $(NATS_USERS); do \
		grep -q "^ZONEPRICE_NKEY_$$u=" $$f && continue; \
		keys=$$($(GO) run github.com/nats-io/nkeys/nk -gen user -pubout); \
		seed=$$(echo "$$keys" | sed -n 1p); pub=$$(echo "$$keys" | sed -n 2p); \
		[ -n "$$seed" ] && [ -n "$$pub" ] || { echo "nk made no key for $$u" >&2; exit 1; }; \
		printf 'ZONEPRICE_NKEY_%s=%s\nZONEPRICE_SEED_%s=%s\n' $$u $$pub $$u $$seed >> $$f; \
		echo "added the NATS user $$u to $$f"; \
	done

clean:
	rm -rf $(BIN)

## test-integration: the failure suite (deploy/cluster): builds the images,
## then runs the scenarios on real containers; needs a Docker engine, and
## fails without one unless ZONEPRICE_SKIP_DOCKER=1 says to skip it
.PHONY: test-integration
test-integration:
	@if [ "$${ZONEPRICE_SKIP_DOCKER:-}" = 1 ]; then \
		echo "ZONEPRICE_SKIP_DOCKER=1: skipping the failure suite (deploy/cluster)"; \
	else \
		$(MAKE) --no-print-directory images && \
		$(GO) test -tags integration -count=1 -timeout 25m -v ./deploy/cluster/; \
	fi
