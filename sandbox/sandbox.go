// Package sandbox confines the commands kws runs for agents with Landlock.
//
// Landlock restricts the calling process and every process it starts
// later, so a command is confined by re-executing the running binary: the
// parent starts /proc/self/exe with a marker argument and the policy, and
// the child (Main, called first thing in main) applies the rules and then
// executes the command in its place. A confined command may write only in
// the workspace, its private temp dir and the paths the policy lists; it
// may read everything except the hidden paths (kws's data and config
// dirs); with Network false it may neither connect nor bind TCP sockets.
// Landlock also keeps it from tracing or reading the memory and
// environment of any process outside the sandbox, kws included, and (from
// Landlock ABI 6) from signalling them.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// marker is argv[1] of a re-executed binary that must confine itself and
// run the command that follows the policy.
const marker = "__kws_sandbox"

// DisableEnv is the environment variable that turns the sandbox off when
// set to "off" (to test the unsandboxed fallback).
const DisableEnv = "KWS_SANDBOX"

// exitSetup is the exit status of a child that could not confine itself;
// it never runs the command unconfined.
const exitSetup = 126

// Policy says what a confined command may touch.
type Policy struct {
	// Workspace is the directory the command runs in; it may read and
	// write everything below it.
	Workspace string `json:"workspace"`
	// Writable lists further files and directories the command may
	// write (the git dir of a linked worktree, for instance).
	Writable []string `json:"writable,omitempty"`
	// Hidden lists files and directories the command may neither read
	// nor write (kws's data dir and config dir). A hidden path wins over
	// every other rule except Workspace and Temp themselves.
	Hidden []string `json:"hidden,omitempty"`
	// Temp is the command's private temp dir: writable, and TMPDIR, TMP,
	// TEMP and GOTMPDIR point at it. Empty means none.
	Temp string `json:"temp,omitempty"`
	// Network allows TCP connect and bind; false denies both (Landlock
	// ABI 4 and later).
	Network bool `json:"network"`
}

// abi probes the kernel's Landlock ABI version once.
var abi = sync.OnceValues(func() (int, error) {
	v, err := probeABI()
	if err != nil {
		return 0, err
	}
	if v < 1 {
		return 0, errors.New("landlock is not enabled in this kernel")
	}
	return v, nil
})

// Available reports whether commands can be confined: a short status such
// as "landlock v7", or an error saying why not (no Landlock in the kernel,
// a container's seccomp filter forbids it, or KWS_SANDBOX=off).
func Available() (string, error) {
	if os.Getenv(DisableEnv) == "off" {
		return "", fmt.Errorf("turned off by %s=off", DisableEnv)
	}
	v, err := abi()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("landlock v%d", v), nil
}

// CacheDir is the sandbox's own cache directory,
// $XDG_CACHE_HOME/kws/sandbox. Confined commands build with GOCACHE below
// it rather than the user's build cache: a command that could write the
// real cache could plant objects that later builds outside the sandbox
// would link.
func CacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("sandbox: cache dir: %w", err)
	}
	return filepath.Join(base, "kws", "sandbox"), nil
}

// Command returns a command that runs argv (argv[0] is looked up in PATH)
// confined by p, in p.Workspace. Its Env is the current environment with
// TMPDIR, TMP, TEMP and GOTMPDIR set to p.Temp and GOCACHE to the
// sandbox's own build cache; callers that change Env should start from
// cmd.Env. Call Available first: where Landlock is missing the command
// fails rather than run unconfined.
func Command(ctx context.Context, p Policy, argv ...string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if p.Workspace == "" {
		return nil, errors.New("sandbox: no workspace")
	}
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	gocache := filepath.Join(cache, "go-build")
	if err := os.MkdirAll(gocache, 0o700); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	p.Writable = append(append([]string(nil), p.Writable...), cache)
	spec, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	cmd := exec.CommandContext(ctx, "/proc/self/exe", append([]string{marker, string(spec)}, argv...)...)
	cmd.Dir = p.Workspace
	cmd.Env = append(os.Environ(), "GOCACHE="+gocache)
	if p.Temp != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+p.Temp, "TMP="+p.Temp, "TEMP="+p.Temp, "GOTMPDIR="+p.Temp)
	}
	return cmd, nil
}

// Main confines the process and executes the command when the binary was
// started by Command; otherwise it returns at once. Call it first thing
// in main (and in TestMain of tests that run confined commands). When the
// process was started by Command, Main never returns: it either executes
// the command or exits with status 126 and the reason on stderr.
func Main() {
	if len(os.Args) < 4 || os.Args[1] != marker {
		return
	}
	err := confineAndExec(os.Args[2], os.Args[3:])
	fmt.Fprintf(os.Stderr, "kws sandbox: %v\n", err)
	os.Exit(exitSetup)
}

// confineAndExec applies the policy in spec to this process and replaces
// it with argv; it returns only on failure.
func confineAndExec(spec string, argv []string) error {
	var p Policy
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		return fmt.Errorf("bad policy: %w", err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	if err := confine(p); err != nil {
		return err
	}
	return execve(path, argv, os.Environ())
}
