package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/sidecar"
)

// SidecarContext is the context window of each sidecar sequence: an agent
// turn in local-only mode carries the system prompt and every tool in the
// text protocol, several thousand tokens before the conversation starts.
// cmd/kws loads the model with it; the agents' profile of the sidecar
// says it.
const SidecarContext = 16384

// CloseEngine releases a loaded model; any other engine needs nothing.
func CloseEngine(e sidecar.Engine) {
	if l, ok := e.(*sidecar.Local); ok {
		_ = l.Model().Close()
	}
}

// sidecarFile is the sidecar model loaded or loading, "" when there is
// none.
func (st *Stores) sidecarFile() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sidecarPath
}

// LoadSidecar loads the sidecar model in the background, once, telling
// every session's status bar its progress; until it is ready, and if it
// fails, the heuristic engine answers.
func (st *Stores) LoadSidecar() {
	st.loadOnce.Do(func() {
		path, err := st.sidecarPath, st.sidecarErr
		if err != nil {
			if !errors.Is(err, sidecar.ErrNoModel) {
				st.say(err.Error())
			}
			return
		}
		dataDir := st.opts.DataDir
		st.tel, _ = sidecar.OpenTelemetry(filepath.Join(dataDir, "sidecar.jsonl"))
		go func() {
			last := -1
			progress := func(f float32) {
				if pct := int(f * 10); pct != last {
					last = pct
					st.say(fmt.Sprintf("loading the sidecar model %s: %d%%", filepath.Base(path), pct*10))
				}
			}
			e, err := sidecar.Open(path, dataDir, st.opts.SidecarLoader, progress, st.tel, st.log)
			if err != nil {
				st.log.Warn("sidecar", "error", err)
				// The status bar stops promising local-only answers.
				st.mu.Lock()
				st.sidecarPath = ""
				st.mu.Unlock()
				st.say("the heuristic engine answers: " + err.Error())
				return
			}
			st.sidecar.Set(e)
			st.say("sidecar ready: " + e.Info().Name)
		}()
	})
}

// localModel is the agents' model in local-only mode: with no remote
// model configured and a sidecar model present, the sidecar. It is nil
// when a remote model is configured.
func (w *Workstation) localModel() (*Model, error) {
	if w.cfgErr == nil {
		return nil, nil
	}
	path := w.st.sidecarFile()
	if path == "" {
		return nil, fmt.Errorf("%w — the shell, vault and stats panes work without a model", w.cfgErr)
	}
	name := "sidecar:" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return &Model{Name: name, Profile: localProfile(name), Client: provider.NewLocal(w.st.sidecar.Current)}, nil
}

// localProfile is the model profile of the sidecar as the agents' model:
// the text tool protocol and the context each sequence gets.
func localProfile(name string) profile.Profile {
	return profile.Profile{ID: name, ContextWindow: SidecarContext, CompletionReserve: 512, Envelope: "text"}
}
