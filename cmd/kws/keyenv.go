package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/kwsdev/kws/server/launch"
)

// held holds the API key variables that protectKeys took out of the
// process environment; getenv reads them from here.
var held map[string]string

// getenv is os.Getenv, except that the API key variables come from held:
// kws reads its keys, no process it starts can.
func getenv(name string) string {
	if v, ok := held[name]; ok {
		return v
	}
	return os.Getenv(name)
}

// protectKeys keeps the model's API key out of reach of every process kws
// starts. The kernel shows a process's initial environment to any process
// of the same user (/proc/PID/environ), and unsetting a variable does not
// change it; so when a key variable is set, kws re-executes itself (same
// pid, same arguments) with the keys moved from the environment to a pipe
// it reads at once. It also marks the process non-dumpable, which closes
// /proc/PID/environ and /proc/PID/mem to other processes of a normal user
// (root's commands are kept out by the sandbox). When re-executing fails,
// the keys are at least removed from what children inherit.
func protectKeys(args []string) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("mark kws non-dumpable: %w", err)
	}
	// A kws that started this one (a re-execution, a client starting its
	// server) may have passed keys on a pipe already.
	passed, err := launch.ReadHeld()
	if err != nil {
		return err
	}
	keys, env := launch.SplitKeys(os.Environ(), launch.KeyNames(args))
	if len(keys) == 0 {
		held = passed
		return nil
	}
	for name, v := range passed {
		keys[name] = v
	}
	err = reexecHolding(keys, env, args)
	// Still here: exec failed. Children at least do not inherit the keys.
	held = keys
	for name := range keys {
		os.Unsetenv(name)
	}
	return err
}

// reexecHolding replaces this process with a fresh copy of the binary
// whose environment is env, passing keys on an inherited pipe. It returns
// only when the exec fails.
func reexecHolding(keys map[string]string, env, args []string) error {
	r, err := launch.Hold(keys)
	if err != nil {
		return err
	}
	defer r.Close()
	// The read end must survive the exec.
	fd := int(r.Fd())
	if _, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, 0); errno != 0 {
		return fmt.Errorf("hold API keys: %w", errno)
	}
	env = append(env, launch.HeldEnv+"="+strconv.Itoa(fd))
	err = syscall.Exec("/proc/self/exe", args, env)
	return fmt.Errorf("re-execute kws without the API key in its environment: %w", err)
}
