package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestTarget(t *testing.T) {
	for cflags, want := range map[string]string{
		"":                                  "portable",
		"-O2 -g":                            "portable",
		"-O2 -march=native -mno-amx-int8":   "native",
		"-march=x86-64-v2 -march=x86-64-v3": "x86-64-v3",
	} {
		if got := Target(cflags); got != want {
			t.Errorf("Target(%q) = %q, want %q", cflags, got, want)
		}
	}
}

func TestVersionNamesTheCommit(t *testing.T) {
	rev := "83c725eb35fe0123456789abcdef0123456789ab"
	for _, c := range []struct {
		version, modified, want string
	}{
		{"(devel)", "false", "83c725eb35fe"},
		{"v0.0.0-20261127175113-83c725eb35fe", "false", "83c725eb35fe"},
		{"v0.0.0-20261127175113-83c725eb35fe+dirty", "true", "83c725eb35fe-dirty"},
		{"v1.2.0", "false", "v1.2.0"},
	} {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Path: "github.com/kwsdev/kws/cmd/kws", Main: debug.Module{Version: c.version},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: c.modified},
				{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"}, {Key: "CGO_CFLAGS", Value: "-O2 -march=native"}}}
		in := fromBuild(bi)
		if in.Version != c.want || in.Target != "native" || in.Arch != "arm64" {
			t.Errorf("%s: %+v, want version %s", c.version, in, c.want)
		}
	}
}

func TestReport(t *testing.T) {
	core := Info{Version: "83c725eb35fe", Go: "go1.26.8", OS: "linux", Arch: "amd64", CFlags: "-march=native", Target: "native"}
	client := core
	client.Version = "0123456789ab"
	var b strings.Builder
	Report{Core: &core, Client: &client, Features: []string{"AVX2", "FMA"}}.Write(&b)
	for _, want := range []string{"kws 83c725eb35fe\n", "go1.26.8 linux/amd64", "llama.cpp    native (CGO_CFLAGS -march=native)", "AVX2 FMA", "thin client  0123456789ab (built from another version"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if !strings.HasPrefix(b.String(), "kws ") {
		t.Errorf("the version is not the first line:\n%s", b.String())
	}
}

func TestIsVersionArgs(t *testing.T) {
	for args, want := range map[string]bool{"--version": true, "-V": true, "version": true, "version --json": true,
		"": false, "ls": false, "version x": false, "--version --json": true} {
		if got := IsVersionArgs(strings.Fields(args)); got != want {
			t.Errorf("IsVersionArgs(%q) = %v", args, got)
		}
	}
}
