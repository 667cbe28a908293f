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
