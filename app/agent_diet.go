package app

import (
	"github.com/kwsdev/kws/agent/diet"
	"github.com/kwsdev/kws/agent/skill"
	"github.com/kwsdev/kws/config"
)

// dietSettings resolves the agent's context diet: the diet mode's preset
// (Params), then the configuration's [diet] table, then the role's, then
// the session's own settings (kws run's flags), each set field replacing
// the one before. It returns the diet parameters and the compaction
// settings; a combination the diet refuses is an error naming it.
func (s *AgentSpec) dietSettings() (diet.Params, config.Diet, error) {
	d := s.Config.Diet
	if role, ok := skill.Find(skill.Roles(s.Skills), s.Role); ok {
		d = d.With(role.Diet)
	}
	d = d.With(s.Diet)
	if err := d.Validate(); err != nil {
		return diet.Params{}, config.Diet{}, err
	}
	p := s.Params
	if v := d.TriggerTokens; v != nil {
		p.TriggerTokens = *v
	}
	if v := d.Recent; v != nil {
		p.Recent = *v
	}
	if v := d.MinBlockChars; v != nil {
		p.MinBlockChars = *v
	}
	return p, d, p.Validate()
}
