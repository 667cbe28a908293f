// Package buildinfo says what a kws program is, for kws --version and bug
// reports: the version or commit it was built from, the Go toolchain, and
// how its C code (llama.cpp) was compiled. It imports only the standard
// library, so the thin client answers --version without kws-core.
package buildinfo

import (
	"debug/buildinfo"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// Info describes one built program.
type Info struct {
	// Path is the main package's import path.
	Path string `json:"path"`
	// Version is the module version, or the commit's first 12 hex digits
	// (with "-dirty" when the work tree had changes) for a build from a
	// clone, or "(devel)" when neither is known.
	Version string `json:"version"`
	// Time is the commit's time, when known.
	Time string `json:"time,omitempty"`
	// Go is the toolchain that built it, and OS and Arch its target.
	Go   string `json:"go"`
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// CFlags are the CGO_CFLAGS it was built with; Target says what they
	// compile C for: "portable" (no -march) or the -march value.
	CFlags string `json:"cflags,omitempty"`
	Target string `json:"target"`
}

// Self describes the running program.
func Self() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "(devel)", Target: "portable"}
	}
	return fromBuild(bi)
}

// File describes the Go program at path.
func File(path string) (Info, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return Info{}, err
	}
	return fromBuild(bi), nil
}

func fromBuild(bi *debug.BuildInfo) Info {
	in := Info{Path: bi.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	in.OS, in.Arch = set["GOOS"], set["GOARCH"]
	in.Time = set["vcs.time"]
	// A tagged release keeps its version; a build of any other commit
	// (Go gives it a pseudo-version ending in the commit) is named by it.
	if rev := set["vcs.revision"]; len(rev) >= 12 && !tagged(in.Version, rev) {
		in.Version = rev[:12]
		if set["vcs.modified"] == "true" {
			in.Version += "-dirty"
		}
	}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	in.CFlags = set["CGO_CFLAGS"]
	in.Target = Target(in.CFlags)
	return in
}

// tagged says whether version is a module version of a tag rather than
// (devel) or the pseudo-version Go makes for commit rev.
func tagged(version, rev string) bool {
	v := strings.TrimSuffix(version, "+dirty")
	return strings.HasPrefix(v, "v") && !strings.HasSuffix(v, rev[:12]) && v == version
}

// Target is what cflags compile C code for: the value of their last
// -march, or "portable" when they name none.
func Target(cflags string) string {
	t := "portable"
	for _, f := range strings.Fields(cflags) {
		if m, ok := strings.CutPrefix(f, "-march="); ok {
			t = m
		}
	}
	return t
}

// Report is what kws --version prints.
type Report struct {
	// Core is the whole kws (kws-core); nil when it was not found.
	Core *Info `json:"core,omitempty"`
	// Client is the thin client (bin/kws); nil when it was not found.
	Client *Info `json:"client,omitempty"`
	// Features are the CPU features llama.cpp was compiled for.
	Features []string `json:"llama_cpp_features,omitempty"`
	// Missing says why Core or Client is nil.
	Missing string `json:"missing,omitempty"`
}

// Write prints r as kws --version does: the version first, as tmux -V
// does, then a line for each detail.
func (r Report) Write(w io.Writer) {
	main := r.Core
	if main == nil {
		main = r.Client
	}
	if main == nil {
		fmt.Fprintln(w, "kws (unknown version)")
		return
	}
	fmt.Fprintf(w, "kws %s\n", main.Version)
	if main.Time != "" {
		fmt.Fprintf(w, "  commit time  %s\n", main.Time)
	}
	fmt.Fprintf(w, "  go           %s %s/%s\n", main.Go, main.OS, main.Arch)
	if r.Core != nil {
		fmt.Fprintf(w, "  llama.cpp    %s", r.Core.Target)
		if r.Core.CFlags != "" {
			fmt.Fprintf(w, " (CGO_CFLAGS %s)", r.Core.CFlags)
		}
		fmt.Fprintln(w)
		if len(r.Features) > 0 {
			fmt.Fprintf(w, "  cpu features %s\n", strings.Join(r.Features, " "))
		}
	}
	if r.Core != nil && r.Client != nil && r.Client.Version != r.Core.Version {
		fmt.Fprintf(w, "  thin client  %s (built from another version than kws-core: rebuild both with make build)\n", r.Client.Version)
	}
	if r.Missing != "" {
		fmt.Fprintf(w, "  %s\n", r.Missing)
	}
}

// IsVersionArgs says whether args ask only for the version: --version,
// -V or version.
func IsVersionArgs(args []string) bool {
	if len(args) != 1 && !(len(args) == 2 && args[1] == "--json") {
		return false
	}
	switch args[0] {
	case "--version", "-V", "version":
		return true
	}
	return false
}
