package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Filesystem access rights by the ABI that introduced them.
const (
	fsRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// fsV1 is every right of ABI 1.
	fsV1 = fsRead | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	// fileRights are the rights that apply to a file (not a directory).
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// probeABI asks the kernel for its Landlock ABI version.
func probeABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, fmt.Errorf("landlock is not supported by this kernel or is blocked (seccomp): %w", errno)
	}
	return int(v), nil
}

// handledFS is every filesystem right the kernel of ABI v can restrict
// and this package knows.
func handledFS(v int) uint64 {
	h := uint64(fsV1)
	if v >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if v >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if v >= 5 {
		h |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return h
}

// confine applies p to the calling thread, which must be locked to its
// goroutine, and so to the processes it starts, with every right the
// kernel's Landlock ABI can restrict.
func confine(p Policy) error {
	v, err := abi()
	if err != nil {
		return err
	}
	handled := handledFS(v)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled}
	if v >= 4 && !p.Network && !p.ownNet {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if v >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	// The kernel is told of the fields up to Scoped only: the ones after
	// it are newer than the rights asked for here.
	size := unsafe.Offsetof(attr.Scoped) + unsafe.Sizeof(attr.Scoped)
	rfd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(rfd))
	// Writable paths get every handled right but ioctl on devices,
	// including refer (ABI 2 and later), which moving and linking files
	// between directories needs (git does).
	rw := handled &^ unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	g := plan(p)
	for _, r := range []struct {
		paths  []string
		access uint64
	}{
		// Listing any directory is allowed, so ls and find work on
		// every parent of a hidden path; its files stay unreadable.
		{[]string{"/"}, unix.LANDLOCK_ACCESS_FS_READ_DIR},
		{g.roDirs, fsRead},
		{g.roFiles, fsRead & fileRights},
		{g.rwDirs, rw},
		{g.rwFiles, rw & fileRights},
	} {
		for _, path := range r.paths {
			if err := addRule(int(rfd), path, r.access&handled); err != nil {
				return err
			}
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, rfd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// addRule grants access below path; a path that vanished since the plan
// was made is skipped.
func addRule(rfd int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
	}
	return nil
}

// onMainThread reports whether the caller runs on the process's first
// thread.
func onMainThread() bool { return unix.Gettid() == unix.Getpid() }
