// Package sandbox confines the commands kws runs for agents with Landlock.
//
// Landlock restricts a thread and the processes it starts later. Start
// therefore confines a fresh OS thread, locked to one goroutine, and starts
// the command from it: the child inherits the confinement, the rest of
// kws does not, and the thread is discarded when the goroutine ends. A
// confined command may write only in the workspace, its private temp dir,
// the sandbox's cache and the paths the policy lists; it may read
// everything except the hidden paths (kws's data and config dirs); with
// Network false it may neither connect nor bind TCP sockets; from Landlock
// ABI 6 it cannot signal processes outside the sandbox.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
)

// DisableEnv is the environment variable that turns the sandbox off when
// set to "off" (to test the unsandboxed fallback).
const DisableEnv = "KWS_SANDBOX"

// Policy says what a confined command may touch.
type Policy struct {
	// Workspace is the directory the command runs in; it may read and
	// write everything below it.
	Workspace string
	// Writable lists further files and directories the command may
	// write (the git dir of a linked worktree, for instance).
	Writable []string
	// Hidden lists files and directories the command may neither read
	// nor write (kws's data dir and config dir). A hidden path wins over
	// every other rule except Workspace and Temp themselves.
	Hidden []string
	// Temp is the command's private temp dir: writable, and TMPDIR, TMP,
	// TEMP and GOTMPDIR point at it. Empty means none.
	Temp string
	// Network allows TCP connect and bind; false denies both (Landlock
	// ABI 4 and later).
	Network bool
}

// init keeps the main goroutine on the process's first thread for good
// (the Go runtime runs init on that thread). A goroutine that Start
// confines then never runs there, so the thread whose id is the process
// id, which kill $PPID and /proc/PID reach, stays outside every sandbox.
// Without this, a confined goroutine landing on the first thread put kws
// itself in its commands' domain, and they could signal it.
func init() { runtime.LockOSThread() }

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

// Command returns a command that runs argv in p.Workspace, to be started
// with Start. Its Env is the current environment with TMPDIR, TMP, TEMP
// and GOTMPDIR set to p.Temp and GOCACHE to the sandbox's own build
// cache; callers that change Env should start from cmd.Env.
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
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = p.Workspace
	cmd.Env = append(os.Environ(), "GOCACHE="+gocache)
	if p.Temp != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+p.Temp, "TMP="+p.Temp, "TEMP="+p.Temp, "GOTMPDIR="+p.Temp)
	}
	return cmd, nil
}

// Start starts cmd confined by p (and the sandbox's cache dir writable).
// Where Landlock is missing it fails rather than start cmd unconfined;
// call Available first to decide. Use it instead of cmd.Start, then
// cmd.Wait as usual.
func Start(cmd *exec.Cmd, p Policy) error {
	cache, err := CacheDir()
	if err != nil {
		return err
	}
	p.Writable = append(slices.Clone(p.Writable), cache)
	errc := make(chan error, 1)
	go func() {
		// The thread stays locked: when this goroutine ends, the
		// runtime discards the confined thread instead of reusing it.
		runtime.LockOSThread()
		if err := confine(p); err != nil {
			errc <- fmt.Errorf("sandbox: %w", err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
