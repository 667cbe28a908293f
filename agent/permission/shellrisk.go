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
// is as risky as the option itself, down to one letter (sort --o=F).
var riskyLong = []string{
	"--output", "--output-file", "--output-directory", "--outdir", "--to-file", "--log-file",
	"--exec", "--exec-path", "--pre", "--hostname-bin", "--upload-pack", "--receive-pack",
	"--config", "--config-env", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
	"--ext-diff", "--textconv", "--open-files-in-pager", "--paginate", "--pager",
	"--install", "--eval", "--in-place", "--directory", "--to-command", "--use-compress-program",
	"--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command", "--no-index",
	"--command", "--compress-program", "--temporary-directory", "--files0-from", "--dereference",
	"--dereference-recursive", "--filters",
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
	"-test.outputdir", "-test.gocoverdir", "-test.testlogfile", "-test.fuzzcachedir", "-args",
	"-pkgdir", "-files0-from",
}

// progRules are one program's risky options: cluster lists getopt
// letters that are risky anywhere in a -cluster (the value may be glued
// on: -ofile), words lists exact single-dash flags (Go's flag package
// neither clusters nor glues), and long lists double-dash options risky
// for this program only (--follow is harmless to git log, not to rg).
type progRules struct {
	cluster string
	words   []string
	long    []string
}

// programs holds the rules of the programs kws knows; any other program
// gets defaultRules (-o names an output file for most tools). git's
// options are judged around its subcommand (see gitArgs).
var programs = map[string]progRules{
	"go":    {words: []string{"-o", "-c", "-C", "-w"}},
	"gofmt": {words: []string{"-w"}},
	"sed":   {cluster: "i"},
	// Options that follow symlinks while recursing read whatever a
	// workspace symlink points at.
	"find": {words: []string{"-L", "-follow"}},
	"grep": {cluster: "R"}, "egrep": {cluster: "R"}, "fgrep": {cluster: "R"},
	"rg":   {cluster: "Lz", long: []string{"--follow", "--search-zip"}},
	"ls":   {cluster: "L"},
	"du":   {cluster: "L"},
	"diff": {cluster: "r", long: []string{"--recursive"}},
	"tree": {cluster: "loR"},
	"file": {cluster: "fC", long: []string{"--files-from", "--compile"}},
	"sort": {cluster: "oT"},
	"cat":  {}, "head": {}, "tail": {}, "wc": {}, "stat": {}, "pwd": {},
	"echo": {}, "true": {}, "which": {}, "uname": {}, "date": {},
}

var defaultRules = progRules{cluster: "o"}

// riskyArgs returns why an argument after the n prefix words of argv is a
// risky option, or "".
func riskyArgs(argv []string, n int) string {
	prog := filepath.Base(argv[0])
	switch prog {
	case "git":
		return gitArgs(argv, n)
	case "go":
		if why := goMod(argv[n:]); why != "" {
			return why
		}
	case "sed":
		if why := sedArgs(argv[1:]); why != "" {
			return why
		}
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
		for _, r := range slices.Concat(riskyLong, rules.long) {
			if name == r || len(name) >= 3 && strings.HasPrefix(r, name) {
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

// goMod returns why a go command's -mod flag lets it rewrite go.mod and
// go.sum (-mod=mod), or "". Only -mod=readonly and -mod=vendor are
// judged; a separate value (-mod mod) is not.
func goMod(args []string) string {
	for _, a := range args {
		name, v, hasV := strings.Cut(a, "=")
		if name != "-mod" && name != "--mod" {
			continue
		}
		if !hasV || v != "readonly" && v != "vendor" {
			return fmt.Sprintf("option %s can rewrite go.mod and go.sum", a)
		}
	}
	return ""
}
