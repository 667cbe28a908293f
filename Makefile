# kws — build, run and test. `make run` and `make test` are all a new
# machine needs; `make setup` is idempotent and quiet when nothing is missing.

GO       ?= go
BIN      := bin/kws
FUZZTIME ?= 5s
# Programs the end-to-end test (e2e) and `kws bench ui` drive; setup installs
# the missing ones with apt-get when it can (Debian, as root), else names them.
TOOLS    := tmux vim
export PATH := $(PATH):/usr/local/go/bin

.PHONY: all setup build run test fuzz bench clean

all: build

setup:
	@command -v $(GO) >/dev/null 2>&1 || { echo "kws: Go 1.26 or later is required (https://go.dev/dl)"; exit 1; }
	@missing=; for t in $(TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -z "$$missing" ]; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "kws: installing$$missing (apt-get)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing; } >/dev/null || \
			echo "kws: apt-get could not install$$missing; the e2e test will skip what needs it"; \
	else \
		echo "kws: the e2e test and make bench need$$missing: install it (apt-get install$$missing as root on Debian)"; \
	fi
	@$(GO) mod download

build: setup
	$(GO) build -o $(BIN) ./cmd/kws

run: build
	./$(BIN)

test: setup
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...
	@$(MAKE) --no-print-directory fuzz

# Each fuzz target runs briefly on top of its seed corpus.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseRefs$$' -fuzztime $(FUZZTIME) ./vault
	$(GO) test -run '^$$' -fuzz '^FuzzILRoundTrip$$' -fuzztime $(FUZZTIME) ./vault
	$(GO) test -run '^$$' -fuzz '^FuzzParseFaults$$' -fuzztime $(FUZZTIME) ./agent/diet
	$(GO) test -run '^$$' -fuzz '^FuzzFastEmulator$$' -fuzztime $(FUZZTIME) ./pty

# The Go benchmarks, then the workstation in tmux against plain tmux.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	./$(BIN) bench ui

clean:
	rm -rf bin
