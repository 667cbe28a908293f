package secrets

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestLogHandlerRedacts: what reaches DATA/kws.log goes through
// LogHandler; no secret survives in a message, a string, an error, a
// group, a value's printed form or an attribute bound with With.
func TestLogHandlerRedacts(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewTextHandler(&buf, nil)))
	log = log.With("key", "AKIAIOSFODNN7EXAMPLE")
	log.Warn("agent error: password: Sup3rS3cretPass",
		"error", errors.New("401 Unauthorized: invalid key sk-proj-abcdefghijklmnopqrstuv"),
		slog.Group("tool", "args", `{"command":"curl -H 'Authorization: Bearer abcdef0123456789abcdef'"}`),
		"value", struct{ Token string }{"glpat-Xk3vR9mQ2tZ7wL1pN8sY"},
		"n", 42)
	out := buf.String()
	for _, secret := range []string{"AKIAIOSFODNN7EXAMPLE", "Sup3rS3cretPass", "sk-proj-abcdefghijklmnopqrstuv",
		"abcdef0123456789abcdef", "glpat-Xk3vR9mQ2tZ7wL1pN8sY"} {
		if strings.Contains(out, secret) {
			t.Errorf("log keeps %q: %s", secret, out)
		}
	}
	if !strings.Contains(out, "n=42") || !strings.Contains(out, "401 Unauthorized") {
		t.Errorf("log lost its clean values: %s", out)
	}
}
