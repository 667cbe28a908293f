package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// applyLimits sets l's rlimits on this process; the commands it starts
// inherit them. (Memory is bounded by the jail's cgroup alone.)
func applyLimits(l Limits) error {
	for _, r := range []struct {
		name     string
		resource int
		n        int
		unit     uint64
	}{
		{"processes", unix.RLIMIT_NPROC, l.Processes, 1},
		{"file size", unix.RLIMIT_FSIZE, l.FileMB, 1 << 20},
	} {
		if r.n <= 0 {
			continue
		}
		var cur unix.Rlimit
		if err := unix.Getrlimit(r.resource, &cur); err != nil {
			return fmt.Errorf("limit %s: %w", r.name, err)
		}
		v := uint64(r.n) * r.unit
		// Never raise a limit the user already set lower.
		if cur.Max != unix.RLIM_INFINITY && cur.Max < v {
			v = cur.Max
		}
		if err := unix.Setrlimit(r.resource, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("limit %s to %d: %w", r.name, v, err)
		}
	}
	return nil
}
