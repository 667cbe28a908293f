//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// initArg0 is the argv[0] that turns kws's executable into a jail's init.
const initArg0 = "kws-sandbox-init"

// jailable fails: jails need Linux namespaces.
func jailable() error { return errNotLinux }

// startJailed fails: jails need Linux namespaces.
func startJailed(*exec.Cmd, Policy) error { return errNotLinux }

// runInit is never reached off Linux.
func runInit() { panic(errors.New("sandbox: no jail on this system")) }

// onMainThread is false: nothing is confined here.
func onMainThread() bool { return false }
