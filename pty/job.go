package pty

import (
	"os"
	"syscall"
	"unsafe"
)

// Job returns the process group id of the job running in the terminal's
// foreground when it is not the shell itself (a build, vim, a pager), or 0
// when the shell is at its prompt, has exited, or the group cannot be read.
func (s *Terminal) Job() int {
	select {
	case <-s.done:
		return 0
	default:
	}
	if fg := foregroundGroup(s.master); fg > 0 && fg != s.cmd.Process.Pid {
		return fg
	}
	return 0
}

// foregroundGroup returns the terminal's foreground process group (the
// job the shell is running), or 0 when it cannot be read.
func foregroundGroup(master *os.File) int {
	rc, err := master.SyscallConn()
	if err != nil {
		return 0
	}
	var pgrp int32
	var errno syscall.Errno
	ctlErr := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp)))
	})
	if ctlErr != nil || errno != 0 {
		return 0
	}
	return int(pgrp)
}
