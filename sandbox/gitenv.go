package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// gitNoExec is the git configuration every agent command and every git
// command of kws's own runs with, as
// command-line scope (GIT_CONFIG_COUNT), which outranks the repository's
// own .git/config: each key names a program git would run, set to a value
// that runs nothing from the repository. A workspace's config can still
// name programs through keys whose names it chooses (diff.<driver>.command
// and .textconv, filter.<driver>.clean, .smudge and .process,
// merge.<driver>.driver, pager.<command>, alias.*, remote.<name>.uploadpack
// for remotes other than origin) and through diff.external, which has no
// value meaning "none"; the sandbox confines what those programs can do.
var gitNoExec = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"core.editor", "true"},
	{"sequence.editor", "true"},
	{"core.askPass", ""},
	// An empty helper clears the list of credential helpers.
	{"credential.helper", ""},
	{"core.sshCommand", "ssh"},
	{"gpg.program", "gpg"},
	{"gpg.openpgp.program", "gpg"},
	{"gpg.x509.program", "gpgsm"},
	{"gpg.ssh.program", "ssh-keygen"},
	{"gpg.ssh.defaultKeyCommand", ""},
	{"interactive.diffFilter", ""},
	{"protocol.ext.allow", "never"},
	{"remote.origin.uploadpack", "git-upload-pack"},
	{"remote.origin.receivepack", "git-receive-pack"},
}

// GitEnv returns the variables that add gitNoExec after any
// GIT_CONFIG_COUNT entries already in environ, and keep git from
// prompting or paging.
func GitEnv(environ []string) []string {
	n := 0
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			if c, err := strconv.Atoi(v); err == nil && c > 0 {
				n = c
			}
		}
	}
	out := make([]string, 0, 2*len(gitNoExec)+1)
	for i, kv := range gitNoExec {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, kv[1]))
	}
	return append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+len(gitNoExec)), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat")
}
