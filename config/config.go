// Package config loads kws's config.toml: the user's file, the workspace's
// file, the environment and, applied by the caller, flags. It enforces the
// trust rule: a workspace's file may not set the keys that could redirect
// the API key, grant permissions or rebind keys.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Config is kws's configuration: which model to talk to and how the agent
// may act. Command-line flags are applied by the caller after Load.
type Config struct {
	// BaseURL is the OpenAI-compatible API root.
	BaseURL string `toml:"base_url" json:"base_url"`
	// Model is the model id sent to the API.
	Model string `toml:"model" json:"model"`
	// APIKey is the bearer token. It is read into memory only: it is never
	// serialized, and Redacted and String leave it out.
	APIKey string `toml:"api_key" json:"-"`
	// APIKeyEnv names the environment variable holding the key.
	APIKeyEnv string `toml:"api_key_env" json:"api_key_env,omitempty"`
	// Workspace is the directory the agent works in.
	Workspace string `toml:"-" json:"workspace"`
	// DietMode selects how the conversation is slimmed to fit the window.
	DietMode string `toml:"diet_mode" json:"diet_mode,omitempty"`
	// Yes approves every action without asking.
	Yes bool `toml:"yes" json:"yes"`
	// Permissions maps a tool name to "ask", "allow" or "deny".
	Permissions map[string]string `toml:"permissions" json:"permissions,omitempty"`
	// ShellAllow lists shell commands that run without asking.
	ShellAllow []string `toml:"shell_allow" json:"shell_allow,omitempty"`
	// Keys maps a UI action to its key binding.
	Keys map[string]string `toml:"keys" json:"keys,omitempty"`
	// SidecarModel is the GGUF file of the local sidecar model.
	SidecarModel string `toml:"sidecar_model" json:"sidecar_model,omitempty"`
	// Theme is the workstation's skin.
	Theme string `toml:"theme" json:"theme,omitempty"`
	// MemoryEmbedder chooses memory's embedder: "hash" (the default),
	// "sidecar" (the sidecar's generation model), "openai:MODEL" (the
	// /embeddings endpoint of base_url), or "gguf:PATH", an embedding GGUF
	// (bge, MiniLM, nomic-embed: llama.cpp's bert and nomic-bert, or a
	// decoder naming a pooling type) run in process with its own pooling;
	// a relative PATH is under DATA/models.
	MemoryEmbedder string `toml:"memory_embedder" json:"memory_embedder,omitempty"`
	// Notify is how the server tells an attached terminal that an agent
	// waits for approval: "osc9" (the default), "osc777", "bell" or
	// "off".
	Notify string `toml:"notify" json:"notify,omitempty"`
	// Clipboard is tmux's set-clipboard: ClipboardExternal (the default,
	// as in tmux) lets copy mode set the system clipboard but not the
	// programs in shell panes, ClipboardOn lets their OSC 52 set it too,
	// and ClipboardOff lets neither.
	Clipboard string `toml:"clipboard" json:"clipboard,omitempty"`
	// Temperature and TopP are the sampling settings sent with every
	// request, over the model profile's; a role's own settings win over
	// them. Nil leaves the profile's (or the server's default).
	Temperature *float64 `toml:"temperature" json:"temperature,omitempty"`
	TopP        *float64 `toml:"top_p" json:"top_p,omitempty"`
	// Diet holds the [diet] table: the trigger, recent window, minimum
	// block, compaction threshold and compaction model over the diet
	// mode's preset.
	Diet Diet `toml:"diet" json:"diet,omitzero"`
	// MCP holds the [mcp] table: the MCP servers whose tools agents use.
	MCP MCP `toml:"mcp" json:"mcp,omitzero"`
	// Sandbox holds the [sandbox] table: the resource limits of each
	// agent command. Only the user's own config may set it.
	Sandbox Sandbox `toml:"sandbox" json:"sandbox,omitzero"`
	// Hooks holds the [hooks] table: the commands run when an agent's
	// lifecycle events fire, the user's and then the workspace's (which
	// run only once the user approves them).
	Hooks Hooks `toml:"hooks" json:"hooks,omitempty"`
	// Warnings tell what Load ignored and why: the MCP settings a
	// workspace's file may not set. Callers show them to the user; they
	// quote names from the file, so a terminal gets them through termsafe.
	Warnings []string `toml:"-" json:"-"`
}

// Environment variables Load reads.
const (
	// EnvBaseURL sets the API root.
	EnvBaseURL = "KWS_BASE_URL"
	// EnvModel sets the model id.
	EnvModel = "KWS_MODEL"
	// EnvAPIKey sets the API key.
	EnvAPIKey = "KWS_API_KEY"
	// EnvOpenAIBaseURL is the API root of last resort.
	EnvOpenAIBaseURL = "OPENAI_BASE_URL"
	// EnvOpenAIAPIKey is the API key of last resort.
	EnvOpenAIAPIKey = "OPENAI_API_KEY"
)

// knownKeys are the top-level keys of config.toml.
var knownKeys = []string{"base_url", "model", "api_key", "api_key_env", "diet_mode", "yes", "permissions", "shell_allow", "keys", "sidecar_model", "theme", "memory_embedder", "notify", "clipboard", "temperature", "top_p", "diet", "mcp", "sandbox", "hooks"}

// Load reads the configuration for workspace, each layer overriding
// the one before: $XDG_CONFIG_HOME/kws/config.toml (else
// ~/.config/kws/config.toml), then <workspace>/.kws/config.toml, then
// KWS_BASE_URL, KWS_MODEL and KWS_API_KEY. A key may also come from the
// variable named by api_key_env, or from a literal api_key in a file.
// OPENAI_BASE_URL and OPENAI_API_KEY are the last resort, used only when
// nothing above set the value, so that a globally exported OpenAI key never
// replaces a key configured for kws. Missing files are skipped; env nil
// means os.Getenv. It returns the files and variables that were used.
func Load(workspace string, env func(string) string) (Config, []string, error) {
	if env == nil {
		env = os.Getenv
	}
	c := Config{Workspace: workspace}
	var sources []string
	paths := []string{userConfigPath(env)}
	if workspace != "" {
		paths = append(paths, filepath.Join(workspace, ".kws", "config.toml"))
	}
	for _, path := range paths {
		if path == "" {
			continue
		}
		ok, err := c.applyFile(path, path == paths[0])
		if err != nil {
			return Config{}, nil, err
		}
		if ok {
			sources = append(sources, path)
		}
	}
	fromEnv := func(field *string, name string) {
		if v := strings.TrimSpace(env(name)); v != "" {
			*field = v
			sources = append(sources, "env "+name)
		}
	}
	fromEnv(&c.BaseURL, EnvBaseURL)
	fromEnv(&c.Model, EnvModel)
	fromEnv(&c.APIKey, EnvAPIKey)
	if env(EnvAPIKey) == "" && c.APIKeyEnv != "" {
		fromEnv(&c.APIKey, c.APIKeyEnv)
	}
	if c.BaseURL == "" {
		fromEnv(&c.BaseURL, EnvOpenAIBaseURL)
	}
	if c.APIKey == "" && c.APIKeyEnv == "" {
		fromEnv(&c.APIKey, EnvOpenAIAPIKey)
	}
	return c, sources, nil
}

// userConfigPath is the per-user config file, or "" without a home.
func userConfigPath(env func(string) string) string {
	if dir := env("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "kws", "config.toml")
	}
	home := env("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = h
	}
	return filepath.Join(home, ".config", "kws", "config.toml")
}

// userOnlyKeys may be set only by the user's own config, the environment
// or flags: a cloned repository's .kws/config.toml must not send the API
// key to a server of its choosing, grant itself permissions, or rebind
// keys (a repository that binds "n" to allow-session turns a denial into
// an approval).
var userOnlyKeys = []string{"base_url", "api_key", "api_key_env", "yes", "shell_allow", "sidecar_model", "keys", "clipboard", "sandbox"}

// applyFile layers one TOML file over c. It reports false for a missing
// file. A workspace file (user false) may not set userOnlyKeys, and its
// permissions may only tighten (ask or deny): what it may not set is
// ignored with a warning in c.Warnings, not refused, so a repository
// cannot knock the user's agents offline either.
func (c *Config) applyFile(path string, user bool) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("config: reading %s: %w", path, err)
	}
	var f Config
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return false, fmt.Errorf("config: %s: %w", path, safeTOMLError(err))
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		var names []string
		for _, k := range undecoded {
			names = append(names, k.String())
		}
		sort.Strings(names)
		return false, fmt.Errorf("config: %s: unknown key %s (known keys: %s; in [diet]: %s)",
			path, strings.Join(names, ", "), strings.Join(knownKeys, ", "), strings.Join(dietKeys, ", "))
	}
	defined := md.IsDefined
	if !user {
		var ignored map[string]bool
		ignored, f.Permissions = c.checkWorkspaceFile(path, md.IsDefined, f.Permissions)
		defined = func(key ...string) bool { return md.IsDefined(key...) && !ignored[strings.Join(key, ".")] }
	}
	set := func(dst *string, key, v string) {
		if defined(key) {
			*dst = strings.TrimSpace(v)
		}
	}
	set(&c.BaseURL, "base_url", f.BaseURL)
	set(&c.Model, "model", f.Model)
	set(&c.APIKey, "api_key", f.APIKey)
	set(&c.APIKeyEnv, "api_key_env", f.APIKeyEnv)
	set(&c.DietMode, "diet_mode", f.DietMode)
	set(&c.SidecarModel, "sidecar_model", f.SidecarModel)
	set(&c.Theme, "theme", f.Theme)
	set(&c.MemoryEmbedder, "memory_embedder", f.MemoryEmbedder)
	set(&c.Notify, "notify", f.Notify)
	set(&c.Clipboard, "clipboard", f.Clipboard)
	if defined("yes") {
		c.Yes = f.Yes
	}
	if err := checkSampling(f.Temperature, f.TopP); err != nil {
		return false, fmt.Errorf("config: %s: %w", path, err)
	}
	if md.IsDefined("temperature") {
		c.Temperature = f.Temperature
	}
	if md.IsDefined("top_p") {
		c.TopP = f.TopP
	}
	if err := f.Diet.Validate(); err != nil {
		return false, fmt.Errorf("config: %s: %w", path, err)
	}
	c.Diet = c.Diet.With(f.Diet)
	if defined("sandbox") {
		if err := f.Sandbox.validate(); err != nil {
			return false, fmt.Errorf("config: %s: %w", path, err)
		}
		c.Sandbox = f.Sandbox
	}
	if err := c.mergeMCP(path, f.MCP, user); err != nil {
		return false, err
	}
	if err := c.mergeHooks(path, f.Hooks, user); err != nil {
		return false, err
	}
	if defined("shell_allow") {
		c.ShellAllow = f.ShellAllow
	}
	c.Permissions = mergeMap(c.Permissions, f.Permissions)
	if defined("keys") {
		c.Keys = mergeMap(c.Keys, f.Keys)
	}
	return true, nil
}

// Sandbox is the [sandbox] table: what one agent command may use. Zero
// keeps kws's default; -1 means no limit.
type Sandbox struct {
	// Processes bounds the processes and threads a command runs at once.
	Processes int `toml:"processes" json:"processes,omitempty"`
	// FileMB bounds the size of a file a command writes, in MiB.
	FileMB int `toml:"file_mb" json:"file_mb,omitempty"`
	// MemoryMB bounds the memory a command uses in all, in MiB.
	MemoryMB int `toml:"memory_mb" json:"memory_mb,omitempty"`
}

// validate refuses a limit below -1.
func (s Sandbox) validate() error {
	for _, l := range []struct {
		key string
		v   int
	}{{"processes", s.Processes}, {"file_mb", s.FileMB}, {"memory_mb", s.MemoryMB}} {
		if l.v < -1 {
			return fmt.Errorf("[sandbox] %s = %d: want a positive number, 0 for kws's default or -1 for no limit", l.key, l.v)
		}
	}
	return nil
}

// checkSampling reports a temperature outside [0, 2] or a top_p outside
// (0, 1]; nil values are unset.
func checkSampling(temperature, topP *float64) error {
	if t := temperature; t != nil && !(*t >= 0 && *t <= 2) {
		return fmt.Errorf("temperature = %v: want a number from 0 to 2", *t)
	}
	if p := topP; p != nil && !(*p > 0 && *p <= 1) {
		return fmt.Errorf("top_p = %v: want a number above 0 and at most 1", *p)
	}
	return nil
}

// mergeMap sets every entry of src in dst, allocating dst when needed.
func mergeMap(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]string, len(src))
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

// errAPIKeySyntax replaces TOML errors about api_key, whose text could quote
// part of the key.
var errAPIKeySyntax = errors.New("api_key is not a valid TOML string; write it in quotes: api_key = \"…\"")

// safeTOMLError returns err, unless it is about the api_key line, in which
// case only the line number survives.
func safeTOMLError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) && (pe.LastKey == "api_key" || strings.Contains(pe.LastKey, ".api_key")) {
		return fmt.Errorf("line %d: %w", pe.Position.Line, errAPIKeySyntax)
	}
	return err
}

// checkWorkspaceFile finds the keys a workspace config may not set and
// its permissions that would allow a tool, and warns of them in
// c.Warnings: it returns the keys to ignore and the permissions without
// those that allow.
func (c *Config) checkWorkspaceFile(path string, defined func(...string) bool, perms map[string]string) (map[string]bool, map[string]string) {
	ignored := map[string]bool{}
	var bad []string
	for _, k := range userOnlyKeys {
		if defined(k) {
			ignored[k] = true
			bad = append(bad, k)
		}
	}
	kept := map[string]string{}
	for tool, p := range perms {
		if strings.TrimSpace(p) == PermissionAllow {
			bad = append(bad, "permissions."+tool+" = \"allow\"")
			continue
		}
		kept[tool] = p
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		c.Warnings = append(c.Warnings, fmt.Sprintf("config: %s: ignored %s: it may only be set in your own ~/.config/kws/config.toml, the environment or flags (a repository must not redirect your API key, grant itself permissions, rebind your keys or let its output set your clipboard)",
			path, strings.Join(bad, ", ")))
	}
	return ignored, kept
}
