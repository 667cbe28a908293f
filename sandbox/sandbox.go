// Package sandbox confines the commands kws runs for agents.
//
// Where the kernel allows it (user namespaces), a command runs in a jail
// of its own namespaces (see jail_linux.go): no capability over the host,
// only its own processes, which all die when the command ends or kws
// does, its own /proc, git metadata read-only, the host's Unix sockets
// covered, and, unless the policy grants the network, a loopback of its
// own and no other network. Inside it, and alone where namespaces are
// unavailable, Landlock confines files: a command may write only in the
// workspace, its private temp dir, the sandbox's cache and the paths the
// policy lists; it may read everything except the hidden paths (kws's
// data and config dirs); from Landlock ABI 6 it cannot signal processes
// outside the sandbox. Without namespaces, Network false denies TCP
// connect and bind (Landlock ABI 4) but not UDP or Unix sockets, and a
// command's processes are killed by process group only.
//
// Landlock restricts a thread and the processes it starts later. Without
// a jail, Start therefore confines a fresh OS thread, locked to one
// goroutine, and starts the command from it: the child inherits the
// confinement, the rest of kws does not, and the thread is discarded
// when the goroutine ends.
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
// set to "off", and its namespaces alone when set to "nojail" (to test
// the fallbacks).
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
	// Network gives the command the host's network. False gives a jailed
	// command a network namespace of its own (its own loopback only);
	// without a jail it denies TCP connect and bind (Landlock ABI 4).
	Network bool
	// ReadOnly lists files and directories a jailed command may not
	// change even inside the workspace (git metadata: see GitMetadata).
	ReadOnly []string
	// Forbidden lists files a jailed command may not create (git
	// metadata git would obey if it appeared): one that did not exist
	// when the command started and does when it ends is removed, and
	// the command's stderr says so.
	Forbidden []string
	// Limits bound the command's processes, file size and memory.
	Limits Limits

	// ownNet is set inside a jail with its own network namespace, where
	// Landlock need not restrict TCP.
	ownNet bool
}

// init keeps the main goroutine on the process's first thread for good
// (the Go runtime runs init on that thread). A goroutine that Start
// confines then never runs there, so the thread whose id is the process
// id, which kill $PPID and /proc/PID reach, stays outside every sandbox.
// Without this, a confined goroutine landing on the first thread put kws
// itself in its commands' domain, and they could signal it.
//
// Started as a jail's init (argv[0] is initArg0), the program runs the
// jail instead of itself.
func init() {
	runtime.LockOSThread()
	if len(os.Args) > 0 && os.Args[0] == initArg0 {
		runInit()
	}
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
// as "landlock v7 + namespaces" (or "landlock v7, no namespaces: why"),
// or an error saying why not (no Landlock in the kernel, a container's
// seccomp filter forbids it, or KWS_SANDBOX=off).
func Available() (string, error) {
	if os.Getenv(DisableEnv) == "off" {
		return "", fmt.Errorf("turned off by %s=off", DisableEnv)
	}
	v, err := abi()
	if err != nil {
		return "", err
	}
	if err := jailable(); err != nil {
		return fmt.Sprintf("landlock v%d, no namespaces (%v)", v, err), nil
	}
	if err := cgroupLimits(); err != nil {
		return fmt.Sprintf("landlock v%d + namespaces, no cgroup (%v)", v, err), nil
	}
	return fmt.Sprintf("landlock v%d + namespaces + cgroup", v), nil
}

// Jailed reports whether commands run in namespaces of their own.
func Jailed() bool {
	_, err := abi()
	return err == nil && jailable() == nil
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

// Start starts cmd confined by p (and the sandbox's cache dir writable):
// in a jail where namespaces are available, by Landlock alone where not.
// Where Landlock is missing it fails rather than start cmd unconfined;
// call Available first to decide. Use it instead of cmd.Start, then
// cmd.Wait as usual; in a jail, the process cmd waits for is the jail's
// init, which exits with the command's status (128+n for signal n).
func Start(cmd *exec.Cmd, p Policy) error {
	cache, err := CacheDir()
	if err != nil {
		return err
	}
	p.Writable = append(slices.Clone(p.Writable), cache)
	if _, err := abi(); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if jailable() == nil {
		return startJailed(cmd, p)
	}
	errc := make(chan error, 1)
	go func() {
		// The thread stays locked: when this goroutine ends, the
		// runtime discards the confined thread instead of reusing it.
		runtime.LockOSThread()
		if onMainThread() {
			// The first thread is the one kill $PPID and /proc/PID
			// reach: confined, it would put kws inside its
			// commands' sandbox.
			errc <- errors.New("sandbox: refusing to confine the process's main thread")
			return
		}
		if err := confine(p); err != nil {
			errc <- fmt.Errorf("sandbox: %w", err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
