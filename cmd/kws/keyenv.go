package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/kwsdev/kws/config"
)

// heldEnvFD names the variable that tells a re-executed kws which file
// descriptor carries the API keys taken out of its environment.
const heldEnvFD = "KWS_HELD_ENV_FD"

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
	if fd := os.Getenv(heldEnvFD); fd != "" {
		return readHeld(fd)
	}
	names := keyVarNames(args)
	keys := map[string]string{}
	var env []string
	for _, kv := range os.Environ() {
		name, v, _ := strings.Cut(kv, "=")
		if slices.Contains(names, name) {
			keys[name] = v
			continue
		}
		env = append(env, kv)
	}
	if len(keys) == 0 {
		return nil
	}
	err := reexecHolding(keys, env, args)
	// Still here: exec failed. Children at least do not inherit the keys.
	held = keys
	for name := range keys {
		os.Unsetenv(name)
	}
	return err
}

// keyVarNames are the variables that may hold the model's API key:
// KWS_API_KEY, OPENAI_API_KEY, the user config's api_key_env and the
// --api-key-env flag's value.
func keyVarNames(args []string) []string {
	names := []string{config.EnvAPIKey, config.EnvOpenAIAPIKey}
	if cfg, _, err := config.Load("", os.Getenv); err == nil && cfg.APIKeyEnv != "" {
		names = append(names, cfg.APIKeyEnv)
	}
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--api-key-env="); ok {
			names = append(names, v)
		} else if a == "--api-key-env" && i+1 < len(args) {
			names = append(names, args[i+1])
		}
	}
	return names
}

// reexecHolding replaces this process with a fresh copy of the binary
// whose environment is env, passing keys on an inherited pipe. It returns
// only when the exec fails.
func reexecHolding(keys map[string]string, env, args []string) error {
	data, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return fmt.Errorf("hold API keys: %w", err)
	}
	// The pipe's buffer (64 KiB) takes the few keys before anyone reads.
	if _, err := syscall.Write(p[1], data); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return fmt.Errorf("hold API keys: %w", err)
	}
	syscall.Close(p[1])
	// The read end must survive the exec; the write end is closed.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(p[0]), syscall.F_SETFD, 0); errno != 0 {
		syscall.Close(p[0])
		return fmt.Errorf("hold API keys: %w", errno)
	}
	env = append(env, heldEnvFD+"="+strconv.Itoa(p[0]))
	err = syscall.Exec("/proc/self/exe", args, env)
	syscall.Close(p[0])
	return fmt.Errorf("re-execute kws without the API key in its environment: %w", err)
}

// readHeld reads the keys a re-executing kws passed on descriptor fd and
// forgets the descriptor's variable, so kws's children never see it.
func readHeld(fd string) error {
	os.Unsetenv(heldEnvFD)
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return fmt.Errorf("%s=%q is not a descriptor", heldEnvFD, fd)
	}
	f := os.NewFile(uintptr(n), "held-keys")
	defer f.Close()
	held = map[string]string{}
	if err := json.NewDecoder(f).Decode(&held); err != nil {
		return fmt.Errorf("read the API keys kws passed itself: %w", err)
	}
	return nil
}
