package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/server"
	"github.com/kwsdev/kws/sidecar"
)

// localModel is the agents' model in local-only mode: with no remote
// model configured and a sidecar model present, the sidecar. It is nil
// when a remote model is configured.
func (w *workstation) localModel() (*server.Model, error) {
	if w.cfgErr == nil {
		return nil, nil
	}
	if w.sidecarPath == "" {
		return nil, fmt.Errorf("%w — the shell, vault and stats panes work without a model", w.cfgErr)
	}
	name := "sidecar:" + strings.TrimSuffix(filepath.Base(w.sidecarPath), filepath.Ext(w.sidecarPath))
	return &server.Model{Name: name, Profile: localProfile(name), Client: provider.NewLocal(w.sidecar.Current)}, nil
}

// localProfile is the model profile of the sidecar as the agents' model:
// the text tool protocol and the context each sequence gets.
func localProfile(name string) profile.Profile {
	return profile.Profile{ID: name, ContextWindow: sidecarContext, CompletionReserve: 512, Envelope: "text"}
}

// loadSidecar loads the sidecar model in the background, showing its
// progress in the status bar; until it is ready, and if it fails, the
// heuristic engine answers.
func (w *workstation) loadSidecar() {
	path, err := w.sidecarPath, w.sidecarErr
	if err != nil {
		if !errors.Is(err, sidecar.ErrNoModel) {
			w.notify(err.Error())
		}
		return
	}
	w.tel, _ = sidecar.OpenTelemetry(filepath.Join(w.g.dataDir, "sidecar.jsonl"))
	go func() {
		last := -1
		progress := func(f float32) {
			if pct := int(f * 10); pct != last {
				last = pct
				w.notify(fmt.Sprintf("loading the sidecar model %s: %d%%", filepath.Base(path), pct*10))
			}
		}
		e, err := sidecar.Open(path, w.g.dataDir, sidecarLoader, progress, w.tel, w.log)
		if err != nil {
			w.log.Warn("sidecar", "error", err)
			w.notify("the heuristic engine answers: " + err.Error())
			// The status bar stops promising local-only answers.
			if a := w.appP.Load(); a != nil {
				a.Update(func() { w.sidecarPath = "" })
			}
			return
		}
		w.sidecar.Set(e)
		w.notify("sidecar ready: " + e.Info().Name)
	}()
}
