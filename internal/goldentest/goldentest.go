// Package goldentest compares test output with golden files under
// testdata/; `go test -update` rewrites them. Only tests import it: it
// registers the -update flag.
package goldentest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Check compares got with testdata/<name>.golden, or rewrites the file
// with -update.
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("screen differs from %s (go test -update rewrites it):\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

// Updating reports whether the test runs with -update, for a test that
// keeps generated text somewhere other than a golden file.
func Updating() bool { return *update }
