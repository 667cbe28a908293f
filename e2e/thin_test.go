package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/server/launch"
	"github.com/kwsdev/kws/server/wire"
)

// TestThinClient runs bin/kws as make build lays it out, the thin client
// beside kws-core: without a server it is kws-core; with one, memory
// commands run in the server, even with no kws-core to fall back on, and
// answer as kws-core does; kws bench memory times all three ways.
func TestThinClient(t *testing.T) {
	bin := t.TempDir()
	thin := buildKws(t, bin)
	core := filepath.Join(bin, "kws-core")
	run, err := os.MkdirTemp("", "kwsthin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	data := filepath.Join(t.TempDir(), "data")
	t.Setenv("XDG_RUNTIME_DIR", run)
	t.Setenv(wire.SocketEnv, "")
	t.Setenv("KWS_DATA_DIR", "")
	t.Setenv("HOME", t.TempDir())
	sock, err := wire.SocketPath(data)
	if err != nil {
		t.Fatal(err)
	}
	kws := func(program string, extra []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(program, append([]string{"--data-dir", data}, args...)...)
		cmd.Env = append(os.Environ(), extra...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", filepath.Base(program), args, err, out)
		}
		return string(out)
	}
	type hit struct{ ID, Text string }
	search := func(program string, extra []string, q string) []hit {
		t.Helper()
		var hits []hit
		for _, line := range strings.Split(strings.TrimSpace(kws(program, extra, "--json", "memory", "search", q)), "\n") {
			var h hit
			if err := json.Unmarshal([]byte(line), &h); err != nil {
				t.Fatalf("memory search printed %q: %v", line, err)
			}
			hits = append(hits, h)
		}
		return hits
	}

	kws(thin, nil, "memory", "add", "the user prefers pnpm over npm")
	kws(thin, nil, "memory", "add", "integration tests live in e2e and need tmux")
	alone := search(thin, nil, "does the user prefer pnpm")
	if len(alone) == 0 || alone[0].Text != "the user prefers pnpm over npm" {
		t.Fatalf("without a server: %+v", alone)
	}

	// The server starts as the workstation starts it.
	c, err := launch.DialOrStart(sock, launch.Spec{Exe: core, DataDir: data, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = server.KillServer(sock) })
	c.Close()
	// No kws-core to fall back on: what answers is the server.
	noCore := []string{"KWS_CORE=" + filepath.Join(bin, "missing")}
	if got := search(thin, noCore, "does the user prefer pnpm"); !slices.Equal(got, alone) {
		t.Fatalf("through the server %+v, alone %+v", got, alone)
	}
	kws(thin, noCore, "memory", "add", "the staging database is postgres 16")
	if got := search(core, nil, "staging database"); len(got) == 0 || got[0].Text != "the staging database is postgres 16" {
		t.Fatalf("a memory added through the thin client: %+v", got)
	}

	var res struct {
		Rows []struct {
			Program  string  `json:"program"`
			Server   bool    `json:"server"`
			Searches int     `json:"searches"`
			P50Ms    float64 `json:"p50_ms"`
		} `json:"rows"`
	}
	out := kws(thin, nil, "--json", "bench", "memory", "--memories", "300", "--searches", "3", "--direct", "2")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("kws bench memory printed %q: %v", out, err)
	}
	want := []string{"kws true 3", "kws-core true 3", "kws-core false 2"}
	if len(res.Rows) != len(want) {
		t.Fatalf("kws bench memory rows %+v, want %q", res.Rows, want)
	}
	for i, r := range res.Rows {
		if got := fmt.Sprintf("%s %v %d", r.Program, r.Server, r.Searches); got != want[i] || r.P50Ms <= 0 {
			t.Fatalf("kws bench memory row %d: %+v, want %q", i, r, want[i])
		}
	}
}
