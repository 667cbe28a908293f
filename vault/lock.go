package vault

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// describeHolder names the process that holds the flock on path, read from
// /proc/locks (Linux). It returns a best-effort description, never an error.
func describeHolder(path string) string {
	pid := lockHolderPID(path)
	if pid <= 0 {
		return "another process (pid unknown)"
	}
	desc := "pid " + strconv.Itoa(pid)
	if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
		desc += " (" + strings.TrimSpace(string(cmd)) + ")"
	}
	return desc
}

// lockHolderPID returns the pid holding an flock on path, or 0.
func lockHolderPID(path string) int {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer f.Close()
	return parseProcLocks(bufio.NewScanner(f), st.Ino)
}

// parseProcLocks finds the pid of a lock on inode ino in /proc/locks lines
// such as "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF".
func parseProcLocks(sc *bufio.Scanner, ino uint64) int {
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] == "->" {
			continue
		}
		dev := strings.Split(fields[5], ":")
		if len(dev) != 3 {
			continue
		}
		n, err := strconv.ParseUint(dev[2], 10, 64)
		if err != nil || n != ino {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 {
			return pid
		}
	}
	return 0
}
