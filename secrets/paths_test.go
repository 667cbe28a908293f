package secrets

import "testing"

func TestSensitivePath(t *testing.T) {
	for path, want := range map[string]bool{
		".env":                        true,
		"app/.env.production":         true,
		"/home/u/.aws/credentials":    true,
		"~/.aws/config":               true,
		"~/.ssh/id_ed25519":           true,
		"deploy/.pgpass":              true,
		".npmrc":                      true,
		"/root/.netrc":                true,
		"certs/server.key":            true,
		"store.p12":                   true,
		"config/credentials.json":     true,
		`C:\Users\u\.aws\credentials`: true,
		".env.example":                false,
		"~/.ssh/id_ed25519.pub":       false,
		"main.go":                     false,
		"docs/credentials-howto.md":   false,
		"":                            false,
	} {
		if got := SensitivePath(path); got != want {
			t.Errorf("SensitivePath(%q) = %v, want %v", path, got, want)
		}
	}
}
