//go:build !linux

package sandbox

import "errors"

// errNotLinux is why nothing can be confined here.
var errNotLinux = errors.New("landlock is only available on Linux")

// probeABI fails: Landlock exists only on Linux.
func probeABI() (int, error) { return 0, errNotLinux }

// confine fails: Landlock exists only on Linux.
func confine(Policy) error { return errNotLinux }
