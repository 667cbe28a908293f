package profile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDurationJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		out     string
		wantErr bool
	}{
		{in: `"90s"`, want: 90 * time.Second, out: `"90s"`},
		{in: `"1m30s"`, want: 90 * time.Second, out: `"90s"`},
		{in: `"2m"`, want: 2 * time.Minute, out: `"120s"`},
		{in: `"1.5s"`, want: 1500 * time.Millisecond, out: `"1.5s"`},
		{in: `45`, want: 45 * time.Second, out: `"45s"`},
		{in: `"0s"`, want: 0, out: `"0s"`},
		{in: `"soon"`, wantErr: true},
		{in: `true`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var d Duration
			err := json.Unmarshal([]byte(tt.in), &d)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal(%s) error = %v, wantErr %t", tt.in, err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if d.Duration() != tt.want {
				t.Errorf("Unmarshal(%s) = %v, want %v", tt.in, d.Duration(), tt.want)
			}
			b, err := json.Marshal(d)
			if err != nil || string(b) != tt.out {
				t.Errorf("Marshal = %s, %v; want %s", b, err, tt.out)
			}
		})
	}
}

func TestProfileJSONRoundTrip(t *testing.T) {
	p := Profile{
		ID: "ollama/*", Provider: "ollama", BaseURL: OllamaBaseURL, ContextWindow: 32768,
		CompletionReserve: 4096, Timeout: Duration(90 * time.Second), ToolCalls: false, Envelope: EnvelopeText,
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":"ollama/*"`, `"base_url":`, `"context_window":32768`,
		`"completion_reserve":4096`, `"timeout":"90s"`, `"tool_calls":false`, `"envelope":"text"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
	var back Profile
	if err := json.Unmarshal(b, &back); err != nil || back != p {
		t.Errorf("round trip = %+v, %v; want %+v", back, err, p)
	}
}

func TestBuiltinsAreValid(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range append(Builtins(), Fallback()) {
		if err := p.validate(); err != nil {
			t.Errorf("built-in %q: %v", p.ID, err)
		}
		if seen[p.ID] {
			t.Errorf("built-in id %q appears twice", p.ID)
		}
		seen[p.ID] = true
		if p.ContextWindow <= 0 || p.Timeout <= 0 || p.Envelope == "" || p.ToolCalls != p.NativeTools() {
			t.Errorf("built-in %+v is incomplete", p)
		}
	}
}

// writeFile writes data to dir/rel, creating directories.
func writeFile(t *testing.T, dir, rel, data string) string {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadOverrides(t *testing.T) {
	const fileJSON = `[{"id": "qwen3", "context_window": 40960, "timeout": "90s"}]`
	tests := []struct {
		name    string
		file    string
		env     string
		envFile string
		wantIDs []string
		wantErr []string
		checkFn func(t *testing.T, ps []Profile)
	}{
		{name: "nothing"},
		{name: "workspace file", file: fileJSON, wantIDs: []string{"qwen3"},
			checkFn: func(t *testing.T, ps []Profile) {
				if ps[0].ContextWindow != 40960 || ps[0].Timeout.Duration() != 90*time.Second {
					t.Errorf("profile = %+v", ps[0])
				}
			}},
		{name: "inline env after file", file: fileJSON, env: `[{"id": "gpt-*", "envelope": "text"}]`,
			wantIDs: []string{"qwen3", "gpt-*"}},
		{name: "inline single object", env: `{"id": "x", "context_window": 1000}`, wantIDs: []string{"x"}},
		{name: "env names a file", envFile: `[{"id": "from-env-file"}]`, wantIDs: []string{"from-env-file"}},
		{name: "bad file JSON", file: `[{"id": "qwen3",]`, wantErr: []string{"model-profiles.json", "bad model profiles JSON"}},
		{name: "unknown field", file: `[{"id": "qwen3", "context": 5}]`, wantErr: []string{"model-profiles.json", "context"}},
		{name: "bad inline JSON", env: `[{"id": }]`, wantErr: []string{"KWS_MODEL_PROFILES"}},
		{name: "bad JSON in env file", envFile: `nope`, wantErr: []string{"env-profiles.json", "KWS_MODEL_PROFILES"}},
		{name: "missing env file", env: "/nonexistent/profiles.json", wantErr: []string{"KWS_MODEL_PROFILES", "/nonexistent/profiles.json"}},
		{name: "invalid envelope", env: `[{"id": "a", "envelope": "xml"}]`, wantErr: []string{"entry 1", `"xml"`}},
		{name: "reserve too big", env: `[{"id": "a", "context_window": 100, "completion_reserve": 100}]`, wantErr: []string{"no room"}},
		{name: "missing id", env: `[{"context_window": 100}]`, wantErr: []string{"no id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			if tt.file != "" {
				writeFile(t, ws, OverridesFile, tt.file)
			}
			env := tt.env
			if tt.envFile != "" {
				env = writeFile(t, t.TempDir(), "env-profiles.json", tt.envFile)
			}
			t.Setenv(OverridesEnv, env)
			ps, err := LoadOverrides(ws)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("LoadOverrides = %+v, want an error", ps)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not mention %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadOverrides: %v", err)
			}
			var ids []string
			for _, p := range ps {
				ids = append(ids, p.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.wantIDs, ",") {
				t.Errorf("ids = %v, want %v", ids, tt.wantIDs)
			}
			if tt.checkFn != nil {
				tt.checkFn(t, ps)
			}
		})
	}
}
