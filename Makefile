# kws — build, run and test. `make run` and `make test` are all a new
# machine needs; `make setup` is idempotent and quiet when nothing is missing.

GO       ?= go
BIN      := bin/kws
FUZZTIME ?= 5s
export PATH := $(PATH):/usr/local/go/bin

.PHONY: all setup build run test fuzz bench clean

all: build

setup:
	@command -v $(GO) >/dev/null 2>&1 || { echo "kws: Go 1.26 or later is required (https://go.dev/dl)"; exit 1; }
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

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
