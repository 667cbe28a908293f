package launch

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kwsdev/kws/config"
)

// HeldEnv names the variable that tells a kws which descriptor carries
// the API keys taken out of its environment.
const HeldEnv = "KWS_HELD_ENV_FD"

// KeyNames are the variables that may hold the model's API key:
// KWS_API_KEY, OPENAI_API_KEY, the user config's api_key_env and the
// value of args' --api-key-env.
func KeyNames(args []string) []string {
	names := []string{config.EnvAPIKey, config.EnvOpenAIAPIKey}
	if cfg, _, err := config.Load("", os.Getenv); err == nil && cfg.APIKeyEnv != "" {
		names = append(names, cfg.APIKeyEnv)
	}
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--api-key-env="); ok {
			names = append(names, v)
		} else if a == "--api-key-env" && i+1 < len(args) {
			names = append(names, args[i+1])
		}
	}
	return names
}

// SplitKeys parts environ into the variables of names that are set (the
// keys) and the rest.
func SplitKeys(environ, names []string) (keys map[string]string, rest []string) {
	keys = map[string]string{}
	for _, kv := range environ {
		name, v, _ := strings.Cut(kv, "=")
		if slices.Contains(names, name) {
			keys[name] = v
			continue
		}
		rest = append(rest, kv)
	}
	return keys, rest
}

// Hold returns the read end of a pipe that holds keys, for a kws that
// reads them with ReadHeld. The pipe's buffer (64 KiB) takes the few keys
// before anyone reads.
func Hold(keys map[string]string) (*os.File, error) {
	data, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("hold API keys: %w", err)
	}
	defer w.Close()
	if _, err := w.Write(data); err != nil {
		r.Close()
		return nil, fmt.Errorf("hold API keys: %w", err)
	}
	return r, nil
}

// ReadHeld reads the keys another kws passed on the descriptor $HeldEnv
// names, if it names one, and forgets the variable, so that nothing this
// kws starts sees it.
func ReadHeld() (map[string]string, error) {
	fd := os.Getenv(HeldEnv)
	if fd == "" {
		return nil, nil
	}
	os.Unsetenv(HeldEnv)
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return nil, fmt.Errorf("%s=%q is not a descriptor", HeldEnv, fd)
	}
	f := os.NewFile(uintptr(n), "held-keys")
	defer f.Close()
	keys := map[string]string{}
	if err := json.NewDecoder(f).Decode(&keys); err != nil {
		return nil, fmt.Errorf("read the API keys kws passed itself: %w", err)
	}
	return keys, nil
}
