package checkpoint

import (
	"io/fs"
	"syscall"
)

// changeStamp returns the inode-change time and inode number of fi: a
// rewrite that keeps the size and puts the old modification time back
// (tar x, cp -p, touch -d) still moves the change time, and a file
// replaced by a rename gets another inode.
func changeStamp(fi fs.FileInfo) (ctime int64, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctim.Nano(), st.Ino
}

// readFlags open a file for reading without blocking on a FIFO put in a
// regular file's place after the walk saw it.
const readFlags = syscall.O_RDONLY | syscall.O_NONBLOCK
