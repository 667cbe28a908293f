package tools

import (
	"encoding/json"
	"testing"
)

// TestMemorySaveRefusesSecrets: issue 10 saw memory_save store
// "aws_secret_access_key = wJalr…". Each secret the issue names comes back
// to the model as a tool error saying memory stores no secrets, and
// nothing reaches the store.
func TestMemorySaveRefusesSecrets(t *testing.T) {
	mem := &fakeMemory{}
	env := newEnv(t, nil)
	env.Memory = mem
	for _, text := range []string{
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"the staging password is tr0ub4dor&3",
		"charge with sk_live_51H8kQ2eZvKYlo2C9xRtW3mNp",
		"publish with npm_k3Jq9ZxR2mT7vW1pL8sY4nB6cD0fH5gA2eUi",
		"CI uses glpat-Xk3vR9mQ2tZ7wL1pN8sY",
		"alerts go to https://hooks.slack.com/services/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",
		"deploy with AKIAIOSFODNN7EXAMPLE",
		"log in with password: Sup3rS3cretPass",
	} {
		args, _ := json.Marshal(map[string]string{"text": text})
		checkResult(t, call(t, env, "memory_save", string(args)), true, "memory never stores secrets")
	}
	if len(mem.saved) != 0 {
		t.Fatalf("saved %q", mem.saved)
	}
}
