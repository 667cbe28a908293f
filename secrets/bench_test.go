package secrets

import (
	"fmt"
	"github.com/BurntSushi/toml"
	"github.com/zricethezav/gitleaks/v8/config"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sourceCorpus is about 1 MB of this repository's own Go code, without
// tests (which hold fake secrets): clean text full of the words that wake
// the generic rules (key, token, auth, access, secret).
func sourceCorpus(b *testing.B) string {
	var sb strings.Builder
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || sb.Len() >= 1<<20 {
			return err
		}
		if d.IsDir() && (d.Name() == "llamacpp" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sb.Write(data)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return sb.String()
}

// toolCorpus is 1 MB of the tool output the diet summarizes most: test
// runs and build logs, one line in 20 naming a token or a key.
func toolCorpus() string {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "=== RUN   TestVaultPut%d\n    vault_test.go:%d: put ctx:%012x n=%d\n--- PASS: TestVaultPut%d (0.%02ds)\n", i, i%400, i*7919, i*31, i, i%100)
		fmt.Fprintf(&sb, "ok  \tgithub.com/kwsdev/kws/agent/diet\t0.%03ds\n", i%1000)
		if i%5 == 0 {
			fmt.Fprintf(&sb, "agent/tokens/count.go:%d: cached key %d for model gpt-4o\n", i%300, i)
		}
	}
	return sb.String()
}

// grepCorpus is the worst case: 1 MB where every line holds a keyword of
// the generic rules, as grep -rn token prints.
func grepCorpus() string {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "agent/auth/token.go:%d:\tif tok.Key == nil || access.Denied(%d) { return errToken }\n", i%900, i)
	}
	return sb.String()
}

func benchmarkFind(b *testing.B, text string) {
	load()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Find(text)
	}
}

// BenchmarkFindSource, BenchmarkFindToolOutput and BenchmarkFindGrep give
// the cost per MB of clean text (go test -bench Find -benchtime 5x
// ./secrets/).
func BenchmarkFindSource(b *testing.B)     { benchmarkFind(b, sourceCorpus(b)) }
func BenchmarkFindToolOutput(b *testing.B) { benchmarkFind(b, toolCorpus()) }
func BenchmarkFindGrep(b *testing.B)       { benchmarkFind(b, grepCorpus()) }

// BenchmarkFindShort is a typical summary line or memory.
func BenchmarkFindShort(b *testing.B) {
	benchmarkFind(b, "Intents: fix the failing auth test in auth/token.go; run go test ./auth/ and show the error")
}

// BenchmarkLoad is the one-time cost of making the detector, which every
// process that checks text pays; BenchmarkTranslate is what it paid
// before the rule table, gitleaks decoding and compiling its config.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		build()
	}
}

func BenchmarkTranslate(b *testing.B) {
	for b.Loop() {
		var vc config.ViperConfig
		if _, err := toml.Decode(config.DefaultConfig, &vc); err != nil {
			b.Fatal(err)
		}
		if _, err := vc.Translate(); err != nil {
			b.Fatal(err)
		}
	}
}
