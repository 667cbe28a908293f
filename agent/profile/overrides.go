package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Where model profile overrides come from.
const (
	// OverridesEnv names the variable holding a path to a profiles file or
	// the profiles JSON itself.
	OverridesEnv = "KWS_MODEL_PROFILES"
	// OverridesFile is the profiles file inside a workspace.
	OverridesFile = ".kws/model-profiles.json"
)

// LoadOverrides reads the user's model profiles: first the workspace file
// .kws/model-profiles.json, then KWS_MODEL_PROFILES (a path to such a file,
// or inline JSON), so that the environment wins in Resolve. Each source is a
// JSON array of profiles (a single object is accepted too). A missing
// workspace file is not an error; malformed JSON, an unknown field or an
// invalid profile is, and the error names its source.
func LoadOverrides(workspace string) ([]Profile, error) {
	var out []Profile
	if workspace != "" {
		path := filepath.Join(workspace, filepath.FromSlash(OverridesFile))
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("profile: reading %s: %w", path, err)
		default:
			ps, err := parseProfiles(data, path)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
		}
	}
	v := strings.TrimSpace(os.Getenv(OverridesEnv))
	if v == "" {
		return out, nil
	}
	source, data := OverridesEnv, []byte(v)
	if v[0] != '[' && v[0] != '{' {
		path := expandHome(v)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("profile: %s names a file that cannot be read (set it to a path or to inline JSON): %w", OverridesEnv, err)
		}
		source, data = fmt.Sprintf("%s (%s)", path, OverridesEnv), b
	}
	ps, err := parseProfiles(data, source)
	if err != nil {
		return nil, err
	}
	return append(out, ps...), nil
}

// parseProfiles decodes and checks the profiles of one source.
func parseProfiles(data []byte, source string) ([]Profile, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	var ps []Profile
	var err error
	if data[0] == '{' {
		var p Profile
		err = decodeStrict(data, &p)
		ps = []Profile{p}
	} else {
		err = decodeStrict(data, &ps)
	}
	if err != nil {
		return nil, fmt.Errorf("profile: %s: bad model profiles JSON (want an array of objects such as "+
			`{"id": "qwen3", "context_window": 40960, "envelope": "native"}`+"): %w", source, err)
	}
	for i, p := range ps {
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("profile: %s: entry %d: %w", source, i+1, err)
		}
	}
	return ps, nil
}

// decodeStrict decodes one JSON value, rejecting unknown fields and
// trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// expandHome turns a leading "~/" into the home directory.
func expandHome(path string) string {
	rest, ok := strings.CutPrefix(path, "~/")
	if !ok {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path
	}
	return filepath.Join(home, rest)
}
