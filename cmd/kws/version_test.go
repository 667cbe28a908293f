package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kwsdev/kws/internal/buildinfo"
)

// TestVersion checks kws version and kws --version: the version first,
// then how llama.cpp was compiled; --json gives the same as an object.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-V"}} {
		out, err := run(t, t.TempDir(), nil, args...)
		if err != nil || !strings.HasPrefix(out, "kws ") || !strings.Contains(out, "llama.cpp    ") || !strings.Contains(out, "go1.") {
			t.Fatalf("%v: %q %v", args, out, err)
		}
	}
	out, err := run(t, t.TempDir(), nil, "version", "--json")
	var r buildinfo.Report
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || r.Core == nil || r.Core.Go == "" || r.Core.Target == "" {
		t.Fatalf("version --json: %q %v", out, err)
	}
}
