# kws — build, run and test. `make run` and `make test` are all a new
# machine needs; `make setup` is idempotent and quiet when nothing is missing.

GO       ?= go
# bin/kws is the thin client (cmd/kws-client): it runs a command in the
# running server when it can, else replaces itself with bin/kws-core, the
# whole kws (cmd/kws), which it expects beside it.
BIN      := bin/kws
CORE     := bin/kws-core
# Programs the tests drive: tmux and vim for the end-to-end test (e2e) and
# `kws bench ui`, git and python3 for the sandbox's attack tests (planted
# git hooks; sockets bash cannot open), which skip without them, and jq for
# the hooks' tests (Claude Code's documented hook scripts read their input
# with it). setup installs the missing ones with apt-get when it can
# (Debian, as root), else names them.
TOOLS    := tmux vim git python3 jq
# sidecar/llamacpp builds llama.cpp (the llama package of github.com/ollama/ollama)
# with cgo. Its Go module lacks three vendored headers: two come from Debian
# packages (header:package, installed by setup like TOOLS), miniaudio.h is copied
# from the Go module github.com/gen2brain/malgo into ~/.cache/kws/include. That
# folder's path is part of the cgo flags and so of Go's build cache key: one
# fixed path lets every clone reuse the compiled llama.cpp.
CHEADERS  := nlohmann/json.hpp:nlohmann-json3-dev stb/stb_image.h:libstb-dev
CINCLUDE  ?= $(HOME)/.cache/kws/include
MINIAUDIO := $(CINCLUDE)/miniaudio/miniaudio.h
NPMDIR    := mcp/npm
NPMSTAMP  := $(NPMDIR)/node_modules/.package-lock.json
export PATH := $(PATH):/usr/local/go/bin
export CGO_CPPFLAGS := $(strip $(filter-out -I$(CINCLUDE),$(CGO_CPPFLAGS)) -I$(CINCLUDE))

.PHONY: all setup deps have-go env build run test fuzz bench clean

all: build

# setup is everything make test needs; deps, the part of it that make build
# and make run need: Go, a C++ compiler and llama.cpp's headers. The test
# tools and the npm packages are the tests' own: their absence fails the
# tests that need them, with a message saying what to install, not the build.
setup: deps $(NPMSTAMP)
	@missing=; for t in $(TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -z "$$missing" ]; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "kws: installing$$missing (apt-get)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing; } >/dev/null || \
			echo "kws: apt-get could not install$$missing; the tests that need it will skip"; \
	else \
		echo "kws: the tests and make bench need$$missing: install it (apt-get install$$missing as root on Debian)"; \
	fi

deps: have-go $(MINIAUDIO)
	@missing=; command -v $(CXX) >/dev/null 2>&1 || missing=" g++"; for hp in $(CHEADERS); do \
		echo "#include <$${hp%%:*}>" | $(CXX) -E -x c++ - >/dev/null 2>&1 || missing="$$missing $${hp#*:}"; \
	done; \
	if [ -z "$$missing" ]; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "kws: installing$$missing (apt-get)"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing; } >/dev/null || \
			echo "kws: apt-get could not install$$missing; sidecar/llamacpp will not build"; \
	else \
		echo "kws: sidecar/llamacpp needs$$missing: install it (apt-get install$$missing as root on Debian)"; \
	fi
	@$(GO) mod download

have-go:
	@command -v $(GO) >/dev/null 2>&1 || { echo "kws: Go 1.26 or later is required (https://go.dev/dl)"; exit 1; }

# miniaudio.h as the llama package includes it ("miniaudio/miniaudio.h"),
# refreshed when go.mod changes. go.mod requires malgo only for this header
# (no Go package imports it), so go mod tidy drops it: keep it there.
$(MINIAUDIO): go.mod
	@mkdir -p $(@D)
	@$(GO) mod download github.com/gen2brain/malgo
	@install -m 644 "$$($(GO) list -m -f '{{.Dir}}' github.com/gen2brain/malgo)/miniaudio.h" $@

# The MCP tests run against real MCP software from npm, pinned in
# $(NPMDIR)/package-lock.json and installed next to it (an ignored folder):
# Node and npm come from Debian when missing.
$(NPMSTAMP): $(NPMDIR)/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
		if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
			echo "kws: installing nodejs npm (apt-get)"; \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm; } >/dev/null; \
		else echo "kws: the MCP tests need Node.js and npm: install them (apt-get install nodejs npm as root on Debian)"; fi; }
	@if command -v npm >/dev/null 2>&1; then cd $(NPMDIR) && npm ci --no-audit --no-fund --loglevel=error >/dev/null; fi

# The cgo flags make exports, for go commands run by hand: eval "$$(make -s env)".
env:
	@echo "export CGO_CPPFLAGS='$(CGO_CPPFLAGS)'"

# bin/kws runs where it is built, so its llama.cpp is compiled for this CPU
# (-march=native: SIMD the portable build leaves out). MARCH=x86-64-v2, say,
# builds a binary for other machines. Tests keep the portable flags. Go's
# build cache is keyed on the flags' text, so with native a checksum of what
# the compiler enables here joins them (a define nothing reads): a cache
# shared with another CPU never hands it this build. Flags already set in
# CGO_CFLAGS and CGO_CXXFLAGS are kept.
MARCH   ?= native
# (gcc wraps --help to $$COLUMNS and translates it: both are pinned, or the
# key, and with it the compiled llama.cpp, would change with the terminal.)
CPUKEY   = $(if $(filter native,$(MARCH)),-DKWS_CPU=$(shell COLUMNS=80 LC_ALL=C $(CC) -march=native -Q --help=target 2>/dev/null | cksum | cut -d' ' -f1))
# No AMX. On a CPU with AMX (Sapphire Rapids and later Xeons, so most cloud
# machines), -march=native or =sapphirerapids defines __AMX_INT8__, and
# ggml-cpu.cpp then calls ggml_backend_amx_buffer_type(), which lives in
# ggml-cpu/amx/amx.cpp: the llama package has no Go file in that folder, so
# cgo never compiles it and the link fails. ollama's own build leaves AMX out
# too. The flag is passed only where the compiler takes it: gcc for arm64
# knows no AMX and rejects it.
NOAMX    = $(shell $(1) -mno-amx-int8 -x c -c -o /dev/null /dev/null >/dev/null 2>&1 && echo -mno-amx-int8)
# The thin client is linked statically (no cgo): it starts without the
# dynamic loader, a millisecond sooner on every attach.
# Both programs carry the commit they were built from (kws --version) when
# this is a git clone that git will read, whatever GOFLAGS says.
VCS      = $(shell git rev-parse --is-inside-work-tree >/dev/null 2>&1 && echo -buildvcs=true)
build: deps
	CGO_CFLAGS="$(or $(CGO_CFLAGS),-O2 -g) -march=$(MARCH) $(call NOAMX,$(CC)) $(CPUKEY)" \
	CGO_CXXFLAGS="$(or $(CGO_CXXFLAGS),-O2 -g) -march=$(MARCH) $(call NOAMX,$(CXX)) $(CPUKEY)" \
	$(GO) build $(VCS) -o $(CORE) ./cmd/kws
	CGO_ENABLED=0 $(GO) build $(VCS) -o $(BIN) ./cmd/kws-client

run: build
	./$(BIN)

# The suite runs every fuzz target's seed corpus and testdata/fuzz inputs
# as plain tests; the exploration itself is make fuzz, because a gate that
# draws new random inputs on every run does not give the same answer twice.
test: setup
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

# Each fuzz target explores beyond its seed corpus for a number of
# executions (a few seconds each here; FUZZX scales every budget), not a
# duration, because Go 1.26's coordinator can report a spurious "context
# deadline exceeded" when a -fuzztime duration ends (go.dev/issue/75804).
# A failing input lands in the package's testdata/fuzz: fix the bug and
# commit the input, so that make test keeps checking it.
FUZZX ?= 1
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseRefs$$' -fuzztime $$((100000 * $(FUZZX)))x ./vault
	$(GO) test -run '^$$' -fuzz '^FuzzILRoundTrip$$' -fuzztime $$((100000 * $(FUZZX)))x ./vault
	$(GO) test -run '^$$' -fuzz '^FuzzParseFaults$$' -fuzztime $$((100000 * $(FUZZX)))x ./agent/diet
	$(GO) test -run '^$$' -fuzz '^FuzzFastEmulator$$' -fuzztime $$((20000 * $(FUZZX)))x ./pty
	$(GO) test -run '^$$' -fuzz '^FuzzRenamesIn$$' -fuzztime $$((100000 * $(FUZZX)))x ./memory

# The Go benchmarks, then the workstation in tmux against plain tmux, then
# kws memory search as a command at 10,000 memories.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	./$(BIN) bench ui
	./$(BIN) bench memory

clean:
	rm -rf bin
