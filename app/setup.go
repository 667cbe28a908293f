package app

import (
	"cmp"
	"errors"
	"io"
	"log/slog"

	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/config"
	"github.com/kwsdev/kws/memory"
	"github.com/kwsdev/kws/memory/agentmem"
	"github.com/kwsdev/kws/termsafe"
)

// Setup is what every agent of a workspace is built from, loaded once for
// all of them: the workstation's agents and kws run's alike.
type Setup struct {
	// Workspace is the project's directory.
	Workspace string
	// Config is the configuration: the user's, the workspace's, the
	// environment, then the caller's adjustments (kws run's flags).
	Config config.Config
	// Overrides are the workspace's model profile overrides.
	Overrides []profile.Profile
	// Params are the diet mode's parameters.
	Params diet.Params
	// Skills are the user's and the workspace's skills and roles.
	Skills []skill.Skill
	// Warnings say what the configuration ignored (a workspace's keys it
	// may not set), and Skipped the skills that could not load: one line
	// each, safe for a terminal.
	Warnings, Skipped []string
}

// LoadSetup reads ws's configuration through getenv, lets adjust change it
// (nil: no change), validates it, and loads the workspace's model profile
// overrides, the diet preset (dietMode, else the configuration's) and the
// skills of configHome and ws. The error says what is wrong; the Setup
// then still holds what could be loaded (the default diet preset in
// place of a bad one), so a workstation can open and show the error in
// its agents' panes.
func LoadSetup(ws, configHome string, getenv func(string) string, dietMode string, adjust func(*config.Config)) (Setup, error) {
	s := Setup{Workspace: ws}
	cfg, _, err := config.Load(ws, getenv)
	s.Config = cfg
	for _, w := range cfg.Warnings {
		// The warning quotes names from the repository's config.
		s.Warnings = append(s.Warnings, termsafe.OneLine(w))
	}
	if err == nil && adjust != nil {
		adjust(&s.Config)
	}
	if err == nil {
		if verr := s.Config.Validate(); verr != nil {
			// The agent pane shows the reason itself, without the
			// package prefix of the wrapped error.
			err = cmp.Or(errors.Unwrap(verr), verr)
		}
	}
	if err == nil {
		s.Overrides, err = profile.LoadOverrides(ws)
	}
	var perr error
	if s.Params, perr = diet.Preset(cmp.Or(dietMode, s.Config.DietMode)); perr != nil {
		err = errors.Join(err, perr)
		s.Params, _ = diet.Preset("")
	}
	var skillErrs []error
	s.Skills, skillErrs = skill.LoadFor(configHome, ws)
	for _, e := range skillErrs {
		s.Skipped = append(s.Skipped, "skill not loaded: "+termsafe.OneLine(e.Error()))
	}
	return s, err
}

// AgentMemory returns the memory of the agent called name working in dir
// (its worktree, or the workspace ws), for its session id: recall from
// store, learning from its turns, engine for the sidecar's help, log for
// what goes wrong (nil discards it). AgentSpec.Memory takes it.
func AgentMemory(store *memory.Store, v agentmem.TurnKeeper, ws, dir, name string, engine agentmem.Extractor, log *slog.Logger) func(id string) Memory {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return func(id string) Memory {
		return agentmem.New(agentmem.Config{Store: store, Vault: v, Workspace: ws, Dir: dir, Agent: name, Session: id,
			Engine: engine, Log: log})
	}
}
