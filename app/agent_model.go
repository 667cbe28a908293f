package app

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
// resolved for that name, overrides first, its sampling settings replaced
// by the configuration's and then by sampling (a role's) where they are
// set, and its client gets the profile's timeout, tool envelope and
// sampling.
func RemoteModel(cfg config.Config, name string, overrides []profile.Profile, sampling profile.Sampling) (Model, error) {
	prof := profile.Resolve(name, cfg.BaseURL, overrides)
	prof.Sampling = prof.Sampling.With(profile.Sampling{Temperature: cfg.Temperature, TopP: cfg.TopP}).With(sampling)
	client, err := provider.New(provider.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: name,
		Timeout: prof.Timeout.Duration(), NativeTools: prof.ToolCalls && prof.Envelope != profile.EnvelopeText,
		Temperature: prof.Temperature, TopP: prof.TopP})
	if err != nil {
		return Model{}, err
	}
	return Model{Name: name, Profile: prof, Client: client}, nil
}

// model is the model spec's agent talks to and the system prompt
// sections of its role: the local model when there is one; else the
// configured remote model, or the role's own model on the same endpoint
// when the role names one, each with its own profile and with the role's
// sampling settings. The skills the model may invoke are listed by the
// skill tool, not here.
func (s *AgentSpec) model() (Model, []string, error) {
	var sections []string
	name := s.Config.Model
	var sampling profile.Sampling
	if role, ok := skill.Find(skill.Roles(s.Skills), s.Role); ok {
		sections = append(sections, "# Your role: "+role.Name+"\n\n"+role.Body)
		if role.Model != "" {
			name = role.Model
		}
		sampling = role.Sampling
	}
	if s.Local != nil {
		return *s.Local, sections, nil
	}
	m, err := RemoteModel(s.Config, name, s.Overrides, sampling)
	if err != nil {
		return Model{}, nil, err
	}
	if s.WrapClient != nil {
		m.Client = s.WrapClient(m.Client)
	}
	return m, sections, nil
}
