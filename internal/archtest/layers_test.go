// Package archtest checks the dependency rule of ARCHITECTURE.md against
// what the packages really import (go list).
package archtest

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/kwsdev/kws/"

// layers ranks the packages as ARCHITECTURE.md's layer table does, lowest
// first: a package may import packages of its own rank or below. A path
// ending in "/..." covers the packages below it.
var layers = [][]string{
	{"vault", "vault/vaulttest", "config", "secrets", "termsafe", "themes", "server/wire", "server/launch", "sidecar/gguf",
		"internal/lexical", "internal/datadir", "internal/buildinfo", "internal/screentest", "internal/goldentest",
		"internal/proctest", "internal/human", "internal/pubsub", "internal/shellwords", "internal/tmuxshim", "internal/trust", "memory/recallset"},
	{"memory", "sidecar", "sidecar/llamacpp", "sidecar/llamacpp/ggufgen", "pty", "sandbox", "team"},
	{"agent", "agent/...", "memory/agentmem"},
	{"swarm", "mcp"},
	{"panes/pane", "panes/keymap"},
	{"panes"},
	{"ui"},
	{"server"},
	{"app"},
	{"cmd/kws", "cmd/kws-client", "sidecar/llamacpp/ggufgen/cmd/ggufgen"},
	{"e2e", "internal/archtest"},
}

// testOnly are packages for tests and benchmarks, and the only packages
// whose production code may import each.
var testOnly = map[string][]string{
	"agent/provider/providertest": nil,
	"agent/hooks/hookstest":       nil,
	"vault/vaulttest":             nil,
	"internal/goldentest":         nil,
	"internal/proctest":           nil,
	"sidecar/llamacpp/ggufgen":    {"sidecar/llamacpp/ggufgen/cmd/ggufgen"},
	// kws memory eval measures memory on the recall benchmark.
	"memory/recallset": {"cmd/kws"},
	// ui's headless test driver (ui/driver.go) renders with it.
	"internal/screentest": {"ui"},
}

// rank is the layer of pkg (a path inside the module), or -1.
func rank(pkg string) int {
	for r, ps := range layers {
		for _, p := range ps {
			if p == pkg || strings.HasSuffix(p, "/...") && strings.HasPrefix(pkg, strings.TrimSuffix(p, "...")) {
				return r
			}
		}
	}
	return -1
}

// pkgInfo is what go list says of a package.
type pkgInfo struct {
	ImportPath string
	Imports    []string
	CgoFiles   []string
}

// list returns every package of the module.
func list(t *testing.T) []pkgInfo {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		p.ImportPath = strings.TrimPrefix(p.ImportPath, module)
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestDependencyRule(t *testing.T) {
	for _, p := range list(t) {
		r := rank(p.ImportPath)
		if r < 0 {
			t.Errorf("%s is in no layer: add it to ARCHITECTURE.md's table and to layers here", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			switch {
			case strings.HasPrefix(imp, module):
				imp = strings.TrimPrefix(imp, module)
				if ri := rank(imp); ri > r {
					t.Errorf("%s imports %s, a layer above it", p.ImportPath, imp)
				}
				if allowed, ok := testOnly[imp]; ok && !slices.Contains(allowed, p.ImportPath) {
					t.Errorf("%s imports %s, which is for tests", p.ImportPath, imp)
				}
			case strings.HasPrefix(imp, "github.com/rivo/tview") || strings.HasPrefix(imp, "github.com/gdamore/tcell"):
				// themes uses tcell's colour type; screentest reads a
				// tcell simulation screen for tests.
				if r < rank("panes/pane") && p.ImportPath != "themes" && p.ImportPath != "internal/screentest" {
					t.Errorf("%s imports %s: nothing below panes draws", p.ImportPath, imp)
				}
			}
			if imp == "sidecar/llamacpp" && p.ImportPath != "cmd/kws" {
				t.Errorf("%s imports sidecar/llamacpp: only cmd/kws may, and hands the loaders to app", p.ImportPath)
			}
		}
		if len(p.CgoFiles) > 0 && p.ImportPath != "sidecar/llamacpp" {
			t.Errorf("%s uses cgo: only sidecar/llamacpp may", p.ImportPath)
		}
		if p.ImportPath == "cmd/kws-client" {
			for _, imp := range p.Imports {
				if strings.Contains(imp, ".") && !slices.Contains([]string{module + "server/wire", module + "server/launch", module + "internal/datadir", module + "internal/buildinfo", module + "termsafe", module + "internal/tmuxshim", "golang.org/x/term"}, imp) {
					t.Errorf("the thin client imports %s: it links server/wire, server/launch, internal/datadir, internal/buildinfo, internal/tmuxshim, termsafe, golang.org/x/term and the standard library only", imp)
				}
			}
		}
	}
}
