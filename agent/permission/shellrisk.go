package permission

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// riskyLong are double-dash options that make a program write a file it
// names, run another program, or take its configuration or repository
// from elsewhere. GNU getopt and git accept any unambiguous abbreviation
// of a long option, so a prefix of one of these (--out=F for --output)
// is as risky as the option itself.
var riskyLong = []string{
	"--output", "--output-file", "--output-directory", "--outdir", "--to-file", "--log-file",
	"--exec", "--exec-path", "--pre", "--hostname-bin", "--upload-pack", "--receive-pack",
	"--config", "--config-env", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
	"--ext-diff", "--textconv", "--open-files-in-pager", "--paginate", "--pager",
	"--install", "--eval", "--in-place", "--directory", "--to-command", "--use-compress-program",
	"--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command", "--no-index",
	"--command",
}

// riskySingle are single-dash word options (find's and go's style; go
// also takes them with two dashes) with the same dangers, alone or with
// =value.
var riskySingle = []string{
	"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
	"-toolexec", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace",
	"-coverprofile", "-outputdir", "-modfile", "-overlay", "-pgo", "-ldflags", "-gcflags",
	"-asmflags", "-gccgoflags", "-compiler", "-vettool", "-test.cpuprofile", "-test.memprofile",
	"-test.blockprofile", "-test.mutexprofile", "-test.trace", "-test.coverprofile",
	"-test.outputdir", "-test.gocoverdir", "-test.testlogfile", "-args",
}

// progRules are one program's risky short options: cluster lists getopt
// letters that are risky anywhere in a -cluster (the value may be glued
// on: -ofile), words lists exact single-dash flags (Go's flag package
// neither clusters nor glues).
type progRules struct {
	cluster string
	words   []string
}

// programs holds the rules of the programs kws knows; any other program
// gets defaultRules (-o names an output file for most tools). git's
// options are judged around its subcommand (see gitArgs).
var programs = map[string]progRules{
	"go":    {words: []string{"-o", "-c", "-C", "-w"}},
	"gofmt": {words: []string{"-w"}},
	"sed":   {cluster: "i"},
	"find":  {}, "grep": {}, "egrep": {}, "fgrep": {}, "rg": {}, "ls": {}, "cat": {}, "head": {},
	"tail": {}, "wc": {}, "tree": {}, "stat": {}, "file": {}, "du": {}, "diff": {}, "pwd": {},
	"echo": {}, "true": {}, "which": {}, "uname": {}, "date": {},
}

var defaultRules = progRules{cluster: "o"}

// gitReadOnly are git subcommands that only read the repository. When an
// allowed prefix stops at "git", the subcommand must be one of them: any
// other word may be an alias from the repository's config, which runs
// whatever it says.
var gitReadOnly = []string{
	"status", "diff", "log", "show", "grep", "blame", "describe", "shortlog", "ls-files",
	"ls-tree", "rev-parse", "rev-list", "cat-file", "show-ref", "merge-base", "name-rev",
	"for-each-ref", "whatchanged", "reflog", "branch", "tag", "remote", "diff-tree", "diff-files",
	"diff-index", "count-objects", "version", "help",
}

// riskyArgs returns why an argument after the n prefix words of argv is a
// risky option, or "".
func riskyArgs(argv []string, n int) string {
	prog := filepath.Base(argv[0])
	if prog == "git" {
		return gitArgs(argv, n)
	}
	rules, ok := programs[prog]
	if !ok {
		rules = defaultRules
	}
	for _, a := range argv[n:] {
		if why := riskyArg(a, rules); why != "" {
			return why
		}
	}
	return ""
}

// riskyArg returns why one argument is risky under a program's rules, or
// "".
func riskyArg(a string, rules progRules) string {
	name, _, _ := strings.Cut(a, "=")
	switch {
	case a == "--" || !strings.HasPrefix(a, "-") || len(a) < 2:
		return ""
	case strings.HasPrefix(a, "--"):
		for _, r := range riskyLong {
			if name == r || len(name) >= 4 && strings.HasPrefix(r, name) {
				return fmt.Sprintf("option %s (%s) can write files, run programs or read outside the workspace", a, r)
			}
		}
		name = name[1:]
	}
	if slices.Contains(riskySingle, name) || slices.Contains(rules.words, name) {
		return fmt.Sprintf("option %s can write files or run programs", a)
	}
	if !strings.HasPrefix(a, "--") && rules.cluster != "" {
		if i := strings.IndexAny(name[1:], rules.cluster); i >= 0 {
			return fmt.Sprintf("option -%c (in %s) can write files or run programs", name[1+i], a)
		}
	}
	return ""
}

// gitArgs returns why a git command line is risky, or "". Before the
// subcommand -c (config, e.g. core.pager=sh) and -C (another directory)
// are risky; after it, -O (git grep's pager) and, for commands that talk
// to a remote, -u (the upload-pack program). When the allowed prefix did
// not fix the subcommand, it must be a known read-only one: any other word
// may be an alias from the repository's config, which runs what it says.
func gitArgs(argv []string, n int) string {
	before := progRules{cluster: "cC"}
	after := progRules{cluster: "O"}
	sub := -1
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if sub < 0 && !strings.HasPrefix(a, "-") {
			sub = i
			if i >= n && !slices.Contains(gitReadOnly, a) {
				return fmt.Sprintf("git %s is not a known read-only git command (it may be an alias from the repository's config)", a)
			}
			if slices.Contains([]string{"fetch", "clone", "pull", "ls-remote", "archive", "remote"}, a) {
				after.cluster += "u"
			}
			continue
		}
		rules := after
		if sub < 0 {
			rules = before
		}
		if why := riskyArg(a, rules); why != "" {
			return why
		}
	}
	return ""
}
