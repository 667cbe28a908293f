package sandbox

import "fmt"

// Limits bound what one confined command may use; zero means no limit.
type Limits struct {
	// Processes is the number of processes (and threads) a jailed
	// command may run at once: its cgroup's pids.max where kws can make
	// one, else RLIMIT_NPROC, which counts the jail's own processes but
	// which the kernel does not apply to root.
	Processes int
	// FileMB is the largest file, in MiB, the command may write
	// (RLIMIT_FSIZE).
	FileMB int
	// MemoryMB is the memory, in MiB, a jailed command may use in all:
	// its cgroup's memory limit, where kws can make one. (No rlimit
	// will do: the race detector and AddressSanitizer reserve terabytes
	// of address space.)
	MemoryMB int
}

// DefaultLimits are the limits agent commands run with unless the user's
// config says otherwise.
var DefaultLimits = Limits{Processes: 2048, FileMB: 8192, MemoryMB: 8192}

// String describes l for the status line and the docs.
func (l Limits) String() string {
	f := func(n int, unit string) string {
		if n <= 0 {
			return "unlimited"
		}
		return fmt.Sprintf("%d%s", n, unit)
	}
	return fmt.Sprintf("processes %s, file size %s, memory %s",
		f(l.Processes, ""), f(l.FileMB, " MiB"), f(l.MemoryMB, " MiB"))
}
