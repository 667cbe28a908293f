package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/app"
	"github.com/kwsdev/kws/server"
)

// localModel is the agents' model in local-only mode: with no remote
// model configured and a sidecar model present, the sidecar. It is nil
// when a remote model is configured.
func (w *workstation) localModel() (*server.Model, error) {
	if w.cfgErr == nil {
		return nil, nil
	}
	path := w.sidecarFile()
	if path == "" {
		return nil, fmt.Errorf("%w — the shell, vault and stats panes work without a model", w.cfgErr)
	}
	name := "sidecar:" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return &server.Model{Name: name, Profile: localProfile(name), Client: provider.NewLocal(w.sidecar.Current)}, nil
}

// localProfile is the model profile of the sidecar as the agents' model:
// the text tool protocol and the context each sequence gets.
func localProfile(name string) profile.Profile {
	return profile.Profile{ID: name, ContextWindow: app.SidecarContext, CompletionReserve: 512, Envelope: "text"}
}
