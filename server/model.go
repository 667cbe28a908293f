// Package server is kws's daemon and its thin client: the socket, the
// protocol, the sessions and their journals. It also holds the one path
// that assembles an agent (Build), shared by the workstation and kws run.
// The composition root, package app, builds the sessions it runs.
package server

import (
	"github.com/kwsdev/kws/agent/profile"
	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/config"
)

// Model is the model an agent talks to: the name sent to the API, the
// profile it runs with (window, reserve, timeout, tool envelope) and a
// client for it.
type Model struct {
	Name    string
	Profile profile.Profile
	Client  provider.Client
}

// RemoteModel is the model called name at cfg's endpoint: its profile is
// resolved for that name, overrides first, and its client gets the
// profile's timeout and tool envelope.
func RemoteModel(cfg config.Config, name string, overrides []profile.Profile) (Model, error) {
	prof := profile.Resolve(name, cfg.BaseURL, overrides)
	client, err := provider.New(provider.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: name,
		Timeout: prof.Timeout.Duration(), NativeTools: prof.ToolCalls && prof.Envelope != profile.EnvelopeText})
	if err != nil {
		return Model{}, err
	}
	return Model{Name: name, Profile: prof, Client: client}, nil
}

// model is the model spec's agent talks to and the system prompt
// sections of its role: the local model when there is one; else the
// configured remote model, or the role's own model on the same endpoint
// when the role names one, each with its own profile.
func (s *AgentSpec) model() (Model, []string, error) {
	sections := []string{skill.ModelList(s.Skills)}
	name := s.Config.Model
	if role, ok := skill.Find(skill.Roles(s.Skills), s.Role); ok {
		sections = append(sections, "# Your role: "+role.Name+"\n\n"+role.Body)
		if role.Model != "" {
			name = role.Model
		}
	}
	if s.Local != nil {
		return *s.Local, sections, nil
	}
	m, err := RemoteModel(s.Config, name, s.Overrides)
	if err != nil {
		return Model{}, nil, err
	}
	if s.WrapClient != nil {
		m.Client = s.WrapClient(m.Client)
	}
	return m, sections, nil
}
