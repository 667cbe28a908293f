package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOverridesCarrySampling(t *testing.T) {
	t.Setenv(OverridesEnv, "")
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".kws"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(json string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(ws, filepath.FromSlash(OverridesFile)), []byte(json), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`[{"id": "qwen3", "temperature": 0, "top_p": 0.8}, {"id": "gpt-4o", "context_window": 9000}]`)
	ps, err := LoadOverrides(ws)
	if err != nil {
		t.Fatalf("LoadOverrides: %v", err)
	}
	got := Resolve("qwen3:8b", "http://localhost:11434/v1", ps)
	if got.Temperature == nil || *got.Temperature != 0 || got.TopP == nil || *got.TopP != 0.8 {
		t.Errorf("qwen3 sampling = %+v, want temperature 0 and top_p 0.8", got.Sampling)
	}
	if unset := Resolve("gpt-4o", "", ps); unset.Temperature != nil || unset.TopP != nil {
		t.Errorf("gpt-4o sampling = %+v, want both unset", unset.Sampling)
	}
	for _, bad := range []string{`{"id": "x", "temperature": 2.5}`, `{"id": "x", "top_p": 0}`, `{"id": "x", "top_p": 1.5}`} {
		write(bad)
		if _, err := LoadOverrides(ws); err == nil || !strings.Contains(err.Error(), "must be") {
			t.Errorf("LoadOverrides(%s) error = %v, want a range error", bad, err)
		}
	}
}

func TestSamplingWith(t *testing.T) {
	a, b, c := 0.1, 0.2, 0.9
	base := Sampling{Temperature: &a, TopP: &c}
	got := base.With(Sampling{Temperature: &b})
	if *got.Temperature != b || *got.TopP != c {
		t.Errorf("With = %v, %v; want %v, %v", *got.Temperature, *got.TopP, b, c)
	}
}
