package agent

import (
	"encoding/json"
	"strings"

	"github.com/kwsdev/kws/agent/provider"
	"github.com/kwsdev/kws/secrets"
)

// answersSecretRead reports whether the tool result with id callID
// answers a call that read a credentials file. prev is the transcript
// before the result; a result follows its assistant message and its
// sibling results, so the search stops at the first assistant message.
func answersSecretRead(prev []provider.Message, callID string) bool {
	for i := len(prev) - 1; i >= 0; i-- {
		switch prev[i].Role {
		case "tool":
			continue
		case "assistant":
			for _, tc := range prev[i].ToolCalls {
				if tc.ID == callID {
					return readsSecretFile(tc)
				}
			}
		}
		return false
	}
	return false
}

// readsSecretFile reports whether a tool call names a credentials file
// (secrets.SensitivePath): a path argument (read_file, grep, outline,
// edit_file) or a word of a shell command (cat ~/.aws/credentials).
func readsSecretFile(tc provider.ToolCall) bool {
	var args struct {
		Path    string   `json:"path"`
		Paths   []string `json:"paths"`
		Command string   `json:"command"`
	}
	if json.Unmarshal([]byte(tc.Arguments), &args) != nil {
		return false
	}
	if secrets.SensitivePath(args.Path) {
		return true
	}
	for _, p := range args.Paths {
		if secrets.SensitivePath(p) {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(args.Command, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '\'' || r == '<' || r == '>' || r == '|' || r == ';' || r == '&' || r == '='
	}) {
		if secrets.SensitivePath(w) {
			return true
		}
	}
	return false
}
