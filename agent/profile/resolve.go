package profile

import (
	"net"
	"net/url"
	"slices"
	"strings"
)

// Resolve returns the profile for model served at baseURL.
//
// The model is looked up under its own name, without an "ollama/" or
// "openrouter/" prefix and without an Ollama ":tag". In order: an exact id;
// the pattern with the most literal characters ("gpt-4o-*", "anthropic/*");
// the server's default, "ollama/*" on an Ollama base URL (port 11434) or
// "openrouter/*" on OpenRouter; the "vendor/model" rule (OpenRouter
// defaults), except on self-hosted servers such as vLLM or LM Studio (plain
// http, a dotless or .local host, a private address); and last the
// fallback profile.
//
// Overrides are searched first in the same order, later entries winning
// over earlier ones with the same id; fields an override leaves empty come
// from the built-in profile the model would otherwise get. Set envelope in
// an override to switch between native and text tool calls.
func Resolve(model, baseURL string, overrides []Profile) Profile {
	natural, derived := candidates(model, baseURL)
	base, ok := match(natural, derived, builtins)
	if !ok || (base.ID == vendorWildcard && isSelfHosted(baseURL)) {
		base = Fallback()
	}
	if o, ok := match(natural, derived, overrides); ok {
		return merge(o, base)
	}
	return base
}

// candidates lists the names model is looked up under, best first: its
// natural names, and the names derived from the server it runs on.
func candidates(model, baseURL string) (natural, derived []string) {
	m := strings.ToLower(strings.TrimSpace(model))
	add := func(list []string, s string) []string {
		if s == "" || slices.Contains(natural, s) || slices.Contains(derived, s) {
			return list
		}
		return append(list, s)
	}
	natural = add(natural, m)
	bare := strings.TrimPrefix(strings.TrimPrefix(m, "openrouter/"), "ollama/")
	natural = add(natural, bare)
	natural = add(natural, stripTag(bare))
	if m == "" {
		return natural, nil
	}
	if isOllama(baseURL) {
		derived = add(derived, "ollama/"+m)
	}
	if strings.Contains(hostOf(baseURL), "openrouter.ai") {
		derived = add(derived, "openrouter/"+m)
	}
	return natural, derived
}

// match finds the best profile: an exact id (natural names first), else
// the longest pattern matching a natural name, else the longest matching a
// derived name, else the "vendor/model" rule. Among equals the later
// profile wins.
func match(natural, derived []string, profiles []Profile) (Profile, bool) {
	all := append(slices.Clip(natural), derived...)
	for _, n := range all {
		for i := len(profiles) - 1; i >= 0; i-- {
			if id := normID(profiles[i].ID); !strings.Contains(id, "*") && id == n {
				return profiles[i], true
			}
		}
	}
	for _, names := range [][]string{natural, derived} {
		if i := bestPattern(names, profiles, false); i >= 0 {
			return profiles[i], true
		}
	}
	if i := bestPattern(all, profiles, true); i >= 0 {
		return profiles[i], true
	}
	return Profile{}, false
}

// bestPattern returns the index of the pattern with the most literal
// characters matching one of names, or -1. vendor selects the
// "vendor/model" rule alone; otherwise that rule is skipped.
func bestPattern(names []string, profiles []Profile, vendor bool) int {
	best, bestScore := -1, -1
	for _, n := range names {
		for i := len(profiles) - 1; i >= 0; i-- {
			id := normID(profiles[i].ID)
			if !strings.Contains(id, "*") || (id == vendorWildcard) != vendor || !globMatch(id, n) {
				continue
			}
			if score := len(id) - strings.Count(id, "*"); score > bestScore {
				best, bestScore = i, score
			}
		}
	}
	return best
}

// normID is a profile id as compared with model names.
func normID(id string) string {
	return strings.ToLower(strings.TrimSpace(id))
}

// stripTag removes an Ollama-style ":tag" suffix ("qwen3:8b" → "qwen3").
func stripTag(name string) string {
	i := strings.LastIndex(name, ":")
	if i <= 0 || strings.Contains(name[i:], "/") {
		return name
	}
	return name[:i]
}

// globMatch reports whether name matches pattern, where * matches any run
// of characters, slashes included.
func globMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return strings.HasSuffix(name, last)
}

// merge fills the fields o leaves empty from base.
func merge(o, base Profile) Profile {
	if o.Provider == "" {
		o.Provider = base.Provider
	}
	if o.BaseURL == "" {
		o.BaseURL = base.BaseURL
	}
	if o.ContextWindow == 0 {
		o.ContextWindow = base.ContextWindow
	}
	if o.CompletionReserve == 0 {
		o.CompletionReserve = base.CompletionReserve
	}
	if o.CompletionReserve >= o.ContextWindow {
		o.CompletionReserve = o.ContextWindow / 4
	}
	if o.Timeout == 0 {
		o.Timeout = base.Timeout
	}
	o.Sampling = base.Sampling.With(o.Sampling)
	switch {
	case o.Envelope == EnvelopeNative:
		o.ToolCalls = true
	case o.Envelope == "" && o.ToolCalls:
		o.Envelope = EnvelopeNative
	case o.Envelope == "":
		o.Envelope, o.ToolCalls = base.Envelope, base.ToolCalls
	}
	return o
}

// hostOf returns the lower-case host of a base URL, or "".
func hostOf(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// isOllama reports a base URL on Ollama's port or host.
func isOllama(baseURL string) bool {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return false
	}
	return u.Port() == "11434" || strings.Contains(strings.ToLower(u.Hostname()), "ollama")
}

// isSelfHosted reports a base URL that looks like a server of the user's
// own (vLLM, LM Studio, llama-server): plain http, a host name without a
// dot, a .local name, or a loopback or private address.
func isSelfHosted(baseURL string) bool {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if u.Scheme == "http" || !strings.Contains(host, ".") || strings.HasSuffix(host, ".local") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified())
}
