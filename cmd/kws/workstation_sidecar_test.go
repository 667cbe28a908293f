package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/sidecar/llamacpp/ggufgen"
	"github.com/kwsdev/kws/swarm"
	"github.com/kwsdev/kws/ui"
)

// openSidecarWorkstation opens the workstation without a remote model on
// the data dir, with the llama.cpp loader kws is built with, and starts
// loading the sidecar model.
func openSidecarWorkstation(t *testing.T, data string) (*app.Workstation, *ui.Driver) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for _, k := range []string{"KWS_BASE_URL", "KWS_MODEL", "KWS_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"} {
		t.Setenv(k, "")
	}
	g := &globals{dataDir: data}
	w, err := app.OpenWorkstation(g.storeOptions(config.Config{}, ""), app.Flags{Workspace: t.TempDir(), Shell: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	var d *ui.Driver
	_, err = w.Start(func(cfg ui.Config) (*ui.App, error) {
		var err error
		d, err = ui.NewDriver(cfg, 160, 48)
		if err != nil {
			return nil, err
		}
		return d.App, nil
	}, nil, nil)
	if err != nil {
		w.Close()
		t.Fatal(err)
	}
	w.LoadSidecar()
	t.Cleanup(func() { _ = d.Stop(); w.Close() })
	return w, d
}

func TestWorkstationLocalOnlyModeAnswersWithTheSidecar(t *testing.T) {
	data := t.TempDir()
	tinyModel(t, data)
	w, d := openSidecarWorkstation(t, data)
	if err := d.WaitFor("sidecar ready: kws-tiny"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text(), "sidecar (local only)") || strings.Contains(d.Text(), "offline") {
		t.Fatalf("status:\n%s", d.Text())
	}
	events, unsubscribe := w.Swarm().Subscribe()
	defer unsubscribe()
	if err := d.Type("hello"); err != nil {
		t.Fatal(err)
	}
	if err := d.Press("Enter"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// Three minutes only bounds a hang: the tiny model decodes slowly
	// under the race detector on a loaded machine.
	hang := time.NewTimer(3 * time.Minute)
	defer hang.Stop()
wait:
	for {
		select {
		case e := <-events:
			if e.Type == swarm.EvFinished && e.Agent == "agent-1" {
				break wait
			}
		case <-hang.C:
			t.Fatal("the local turn did not finish within 3 minutes")
		}
	}
	t.Logf("local turn took %v", time.Since(start))
	if in, _ := w.Swarm().Info("agent-1"); in.Stats.Calls == 0 || in.State != "idle" {
		t.Fatalf("the local model answered no call: %+v", in)
	}
}

func TestWorkstationKeepsWorkingWithACorruptSidecarModel(t *testing.T) {
	data := t.TempDir()
	models := filepath.Join(data, "models")
	if err := os.MkdirAll(models, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ggufgen.WriteCorrupt(filepath.Join(models, "broken.gguf"), ggufgen.Config{}, ggufgen.Truncated); err != nil {
		t.Fatal(err)
	}
	w, d := openSidecarWorkstation(t, data)
	if err := d.WaitFor("the heuristic engine answers"); err != nil {
		t.Fatal(err)
	}
	if !w.Stores().Sidecar().Info().Heuristic {
		t.Fatal("a corrupt model replaced the heuristic engine")
	}
	for _, step := range []func() error{
		func() error { return d.Press("Ctrl-b", "q", "1") },
		func() error { return d.Type("echo still-$((40+2))") },
		func() error { return d.Press("Enter") },
		func() error { return d.WaitFor("still-42") },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
}
