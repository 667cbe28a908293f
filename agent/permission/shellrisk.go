package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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

// gitReadOnly are git subcommands that only read the repository. When an
// allowed prefix stops at "git", the subcommand must be one of them: any
// other word may be an alias from the repository's config, which runs
// whatever it says. branch, tag, remote and reflog also write, so their
// arguments are checked further (see gitListing); help is missing because
// it runs the man viewer or browser the repository's config names.
var gitReadOnly = []string{
	"status", "diff", "log", "show", "grep", "blame", "describe", "shortlog", "ls-files",
	"ls-tree", "rev-parse", "rev-list", "cat-file", "show-ref", "merge-base", "name-rev",
	"for-each-ref", "whatchanged", "reflog", "branch", "tag", "remote", "diff-tree", "diff-files",
	"diff-index", "count-objects", "version",
}

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
			if i >= n {
				if why := gitListing(a, argv[i+1:]); why != "" {
					return why
				}
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

// gitListing returns why the arguments of git branch, tag, remote or
// reflog may do more than list, or "". branch and tag may only list:
// their options must be listing ones, and a name is allowed only as a
// pattern after an option that forces listing (a bare name creates a
// branch or tag). remote may only list (-v) or show a URL (get-url), and
// reflog may not expire or delete entries.
func gitListing(sub string, args []string) string {
	var flags, forcing string
	switch sub {
	case "branch":
		flags, forcing = "arvlqi", "l"
	case "tag":
		flags, forcing = "lni", "ln"
	case "remote":
		if len(args) == 0 || len(args) == 1 && (args[0] == "-v" || args[0] == "--verbose") ||
			args[0] == "get-url" && !slices.ContainsFunc(args[1:], func(a string) bool {
				return strings.HasPrefix(a, "-") && a != "--push" && a != "--all"
			}) {
			return ""
		}
		return "git remote other than listing or get-url can change the repository's config or contact a remote"
	case "reflog":
		if slices.Contains(args, "expire") || slices.Contains(args, "delete") {
			return "git reflog expire and delete rewrite the reflog"
		}
		return ""
	default:
		return ""
	}
	long := []string{"--list", "--all", "--remotes", "--verbose", "--quiet", "--show-current", "--contains",
		"--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--color",
		"--no-color", "--column", "--no-column", "--abbrev", "--no-abbrev", "--ignore-case", "--omit-empty"}
	listForced, names := false, false
	for _, a := range args {
		switch {
		case a == "--":
		case strings.HasPrefix(a, "--"):
			name, _, _ := strings.Cut(a, "=")
			if !slices.Contains(long, name) {
				return fmt.Sprintf("git %s %s is not a listing option", sub, a)
			}
			if slices.Contains([]string{"--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"}, name) {
				listForced = true
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for _, c := range a[1:] {
				if sub == "tag" && c >= '0' && c <= '9' && strings.ContainsRune(a[1:], 'n') {
					continue
				}
				if !strings.ContainsRune(flags, c) {
					return fmt.Sprintf("git %s %s is not a listing option", sub, a)
				}
				if strings.ContainsRune(forcing, c) {
					listForced = true
				}
			}
		default:
			names = true
		}
	}
	if names && !listForced {
		return fmt.Sprintf("git %s with a name creates or changes a %s", sub, sub)
	}
	return ""
}

// sedArgs returns why sed's arguments may make it write, read or run
// something besides printing its input, or "". GNU sed takes its script
// from -e (--expression) options or else from the first operand, and -f
// (--file) reads one from a file, which the repository may have written;
// every script is parsed by sedScript. Options after a file operand are
// refused because without GNU argument permutation (POSIXLY_CORRECT) they
// would be operands and the operand a script.
func sedArgs(args []string) string {
	var scripts, operands []string
	hasE, optAfterOperand := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			optAfterOperand = optAfterOperand || len(operands) > 0
			name, v, hasV := strings.Cut(a, "=")
			switch {
			case len(name) >= 3 && strings.HasPrefix("--expression", name):
				hasE = true
				if !hasV {
					if i+1 >= len(args) {
						return "sed --expression without a script"
					}
					i++
					v = args[i]
				}
				scripts = append(scripts, v)
			case len(name) >= 3 && (strings.HasPrefix("--file", name) || strings.HasPrefix("--in-place", name)):
				return fmt.Sprintf("sed %s reads its script from a file or edits files", a)
			case name == "--line-length" && !hasV:
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			optAfterOperand = optAfterOperand || len(operands) > 0
		letters:
			for j := 1; j < len(a); j++ {
				switch c := a[j]; {
				case strings.IndexByte("nrsuzEb", c) >= 0:
				case c == 'e' || c == 'l':
					v := a[j+1:]
					if v == "" {
						if i+1 >= len(args) {
							return fmt.Sprintf("sed -%c without a value", c)
						}
						i++
						v = args[i]
					}
					if c == 'e' {
						hasE = true
						scripts = append(scripts, v)
					}
					break letters
				default:
					return fmt.Sprintf("sed option -%c (in %s) can edit files, read a script from a file or is unknown", c, a)
				}
			}
		default:
			operands = append(operands, a)
		}
	}
	if optAfterOperand {
		return "sed options after a file operand"
	}
	if !hasE {
		if len(operands) == 0 {
			return ""
		}
		scripts = append(scripts, operands[0])
	}
	for _, sc := range scripts {
		if why := sedScript(sc); why != "" {
			return why
		}
	}
	return ""
}

// sedScript returns why a one-line sed script may do more than print
// its input, or "". It accepts addresses and the commands that only edit
// the pattern and hold spaces or print: s and y (s without the e and w
// flags), a, i and c (their text runs to the end of the line), and
// = d D g G h H l n N p P q Q x z F { } #. Branches and labels, r, R, w,
// W, e and anything unknown are refused. A regular expression is read
// with and without treating [...] as a bracket expression that may hold
// the delimiter, and with a backslash in brackets literal or escaping;
// the script must be safe read every way, so no reading sed may prefer
// hides a command.
func sedScript(script string) string {
	for _, mode := range []int{0, 1, 2} {
		if why := sedScriptMode(script, mode); why != "" {
			return why
		}
	}
	return ""
}

// sedScriptMode parses script with bracket mode 0 (brackets are plain),
// 1 (brackets hold the delimiter, backslash literal in them) or 2
// (brackets hold the delimiter, backslash escapes in them).
func sedScriptMode(s string, mode int) string {
	i := 0
	// regex reads up to the unescaped delimiter d from s[i:] and returns
	// the index after it, or -1.
	regex := func(i int, d byte, brackets bool) int {
		for i < len(s) {
			c := s[i]
			switch {
			case c == '\\':
				i += 2
				continue
			case c == d:
				return i + 1
			case c == '[' && brackets && mode > 0:
				j := i + 1
				if j < len(s) && s[j] == '^' {
					j++
				}
				if j < len(s) && s[j] == ']' {
					j++
				}
				for j < len(s) && s[j] != ']' {
					if s[j] == '\\' && mode == 2 {
						j++
					} else if s[j] == '[' && j+1 < len(s) && strings.IndexByte(":.=", s[j+1]) >= 0 {
						end := strings.Index(s[j+2:], string(s[j+1])+"]")
						if end < 0 {
							return -1
						}
						j += 2 + end + 1
					}
					j++
				}
				if j >= len(s) {
					return -1
				}
				i = j + 1
				continue
			}
			i++
		}
		return -1
	}
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	digits := func() {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	// address reads one address if there is one.
	address := func() bool {
		switch {
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			digits()
			if i < len(s) && s[i] == '~' {
				i++
				digits()
			}
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && (s[i] == '/' || s[i] == '\\'):
			d := byte('/')
			if s[i] == '\\' {
				if i+1 >= len(s) {
					return false
				}
				i++
				d = s[i]
			}
			if i = regex(i+1, d, true); i < 0 {
				return false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ';') {
			i++
		}
		if i >= len(s) {
			return ""
		}
		start := i
		if !address() {
			return "sed address that does not end"
		}
		if i > start && i < len(s) && s[i] == ',' {
			i++
			skip()
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
				digits()
			} else if !address() {
				return "sed address that does not end"
			}
		}
		skip()
		for i < len(s) && (s[i] == '!' || s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return "sed address without a command"
		}
		c := s[i]
		i++
		switch {
		case c == '#' || c == 'a' || c == 'i' || c == 'c':
			return ""
		case c == '{' || c == '}':
			continue
		case strings.IndexByte("=dDgGhHnNpPxzF", c) >= 0:
		case c == 'l' || c == 'q' || c == 'Q':
			skip()
			digits()
		case c == 's' || c == 'y':
			if i >= len(s) || s[i] == '\\' {
				return fmt.Sprintf("sed %c command without a delimiter", c)
			}
			d := s[i]
			if i = regex(i+1, d, c == 's'); i < 0 {
				return fmt.Sprintf("sed %c command that does not end", c)
			}
			if i = regex(i, d, false); i < 0 {
				return fmt.Sprintf("sed %c command that does not end", c)
			}
			if c == 's' {
				for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
					i++
				}
			}
		default:
			return fmt.Sprintf("sed command %q can read or write files, run programs or branch", c)
		}
		skip()
		if i < len(s) && s[i] != ';' && s[i] != '}' {
			return fmt.Sprintf("sed command %q followed by %q", c, s[i])
		}
	}
}

// gitRepository returns why git run in workspace may read a repository or
// work tree outside it, or "". The workspace must hold its own .git
// directory: without one git searches the parent directories, and a .git
// file or symlink (gitdir:) names a repository anywhere. Its config must
// not set a work tree (core.worktree) or include other files, and the
// repository must not borrow objects (alternates) or a common directory
// from elsewhere. With no workspace (as in tests of the policy alone)
// there is nothing to look at and it returns "".
func gitRepository(workspace string) string {
	if workspace == "" {
		return ""
	}
	dir := filepath.Join(workspace, ".git")
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return "the workspace has no .git directory of its own, so git may use a repository outside it"
	}
	for _, name := range []string{"commondir", "objects/info/alternates"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return fmt.Sprintf(".git/%s makes git read a repository outside the workspace", name)
		}
	}
	if st, err := os.Lstat(filepath.Join(dir, "config")); err == nil && !st.Mode().IsRegular() {
		return ".git/config is not a regular file"
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("cannot read .git/config: %v", err)
	}
	lower := strings.ToLower(string(cfg))
	for _, key := range []string{"worktree", "include"} {
		if strings.Contains(lower, key) {
			return fmt.Sprintf(".git/config mentions %s, which can point git at files outside the workspace", key)
		}
	}
	return ""
}
