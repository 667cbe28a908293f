package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Permission values.
const (
	// PermissionAsk asks the user before each use of the tool.
	PermissionAsk = "ask"
	// PermissionAllow runs the tool without asking.
	PermissionAllow = "allow"
	// PermissionDeny never runs the tool.
	PermissionDeny = "deny"
)

// Clipboard values, as tmux's set-clipboard takes them.
const (
	// ClipboardExternal lets copy mode set the system clipboard, not the
	// programs in shell panes: the default.
	ClipboardExternal = "external"
	// ClipboardOn also lets a program's OSC 52 set the clipboard and the
	// paste buffer.
	ClipboardOn = "on"
	// ClipboardOff lets nothing set the system clipboard; copy mode still
	// fills the paste buffer.
	ClipboardOff = "off"
)

// noModelHint is what to do when nothing names a model or server.
const noModelHint = "set KWS_BASE_URL and KWS_MODEL (and KWS_API_KEY), or add base_url/model to ~/.config/kws/config.toml"

// exampleBaseURLs are the API roots Validate suggests when only a model is
// named: OpenAI's, OpenRouter's and a local Ollama server's (the base URLs of
// agent/profile's built-in profiles, which this package may not import).
const exampleBaseURLs = "https://api.openai.com/v1, https://openrouter.ai/api/v1 or http://localhost:11434/v1"

// Validate explains exactly what is missing or wrong. A missing API key is
// fine (local servers need none) unless api_key_env names an empty
// variable.
func (c Config) Validate() error {
	var errs []error
	switch {
	case c.BaseURL == "" && c.Model == "":
		errs = append(errs, errors.New("no model configured: "+noModelHint))
	case c.BaseURL == "":
		errs = append(errs, fmt.Errorf("no base URL configured for model %q: set KWS_BASE_URL "+
			"(for example %s) or base_url in ~/.config/kws/config.toml",
			c.Model, exampleBaseURLs))
	case c.Model == "":
		errs = append(errs, fmt.Errorf("no model configured for %s: set KWS_MODEL or model in ~/.config/kws/config.toml", c.BaseURL))
	}
	switch c.Notify {
	case "", "osc9", "osc777", "bell", "off":
	default:
		errs = append(errs, fmt.Errorf("notify = %q: want osc9, osc777, bell or off", c.Notify))
	}
	switch c.Clipboard {
	case "", ClipboardExternal, ClipboardOn, ClipboardOff:
	default:
		errs = append(errs, fmt.Errorf("clipboard = %q: want external, on or off", c.Clipboard))
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("base URL %q must look like https://host/v1: fix KWS_BASE_URL or base_url", c.BaseURL))
		}
	}
	if err := c.Diet.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.APIKeyEnv != "" && c.APIKey == "" {
		errs = append(errs, fmt.Errorf("api_key_env names %s, which is empty: export %s=<your key> or unset api_key_env", c.APIKeyEnv, c.APIKeyEnv))
	}
	tools := slices.Sorted(maps.Keys(c.Permissions))
	for _, tool := range tools {
		switch c.Permissions[tool] {
		case PermissionAsk, PermissionAllow, PermissionDeny:
		default:
			errs = append(errs, fmt.Errorf("permission %q for tool %q must be %q, %q or %q",
				c.Permissions[tool], tool, PermissionAsk, PermissionAllow, PermissionDeny))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("config: %w", errors.Join(errs...))
}

// Redacted returns a copy without the API key, safe for logs and run
// records. Maps and slices are copied too.
func (c Config) Redacted() Config {
	c.APIKey = ""
	c.Permissions = maps.Clone(c.Permissions)
	c.Keys = maps.Clone(c.Keys)
	c.ShellAllow = slices.Clone(c.ShellAllow)
	return c
}

// String describes the configuration without the API key, so that
// printing a Config with %v or %+v cannot leak it.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "config.Config{BaseURL: %q, Model: %q, APIKey: %s", c.BaseURL, c.Model, key)
	if c.APIKeyEnv != "" {
		fmt.Fprintf(&b, ", APIKeyEnv: %q", c.APIKeyEnv)
	}
	fmt.Fprintf(&b, ", Workspace: %q, DietMode: %q, Yes: %t", c.Workspace, c.DietMode, c.Yes)
	if len(c.Permissions) > 0 {
		fmt.Fprintf(&b, ", Permissions: %s", formatMap(c.Permissions))
	}
	if len(c.ShellAllow) > 0 {
		fmt.Fprintf(&b, ", ShellAllow: %q", c.ShellAllow)
	}
	if len(c.Keys) > 0 {
		fmt.Fprintf(&b, ", Keys: %s", formatMap(c.Keys))
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, so that %#v does not print the API key either.
func (c Config) GoString() string {
	return c.String()
}

// formatMap writes a map with sorted keys.
func formatMap(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %s", k, m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
