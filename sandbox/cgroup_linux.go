package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupSeq names each jail's cgroups apart.
var cgroupSeq atomic.Int64

// cgroup is one jail's control groups: a pids and a memory cgroup (cgroup
// v1) or one cgroup with both controllers (cgroup v2), made below kws's
// own where kws may write there. They bound the whole jail, which
// RLIMIT_NPROC does not do for root and no rlimit does for memory.
type cgroup struct{ dirs []string }

// newCgroup makes the cgroups that enforce l's processes and memory, or
// returns an error saying why none could be made.
func newCgroup(l Limits) (*cgroup, error) {
	type setting struct {
		ctrl, v1, v2 string
		n            int64
	}
	var want []setting
	if l.Processes > 0 {
		want = append(want, setting{"pids", "pids.max", "pids.max", int64(l.Processes)})
	}
	if l.MemoryMB > 0 {
		want = append(want, setting{"memory", "memory.limit_in_bytes", "memory.max", int64(l.MemoryMB) << 20})
	}
	c := &cgroup{}
	if len(want) == 0 {
		return c, nil
	}
	own, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("kws-jail-%d-%d", os.Getpid(), cgroupSeq.Add(1))
	v2, unified := own[""]
	for _, w := range want {
		dir, file := filepath.Join(cgroupRoot, v2, name), w.v2
		if !unified {
			path, ok := own[w.ctrl]
			if !ok {
				continue
			}
			dir, file = filepath.Join(cgroupRoot, w.ctrl, path, name), w.v1
		}
		if !slices.Contains(c.dirs, dir) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				c.remove()
				return nil, fmt.Errorf("cgroup: %w", err)
			}
			c.dirs = append(c.dirs, dir)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(w.n, 10)), 0); err != nil {
			c.remove()
			return nil, fmt.Errorf("cgroup %s: %w", w.ctrl, err)
		}
	}
	if len(c.dirs) == 0 {
		return nil, errors.New("no pids or memory cgroup controller")
	}
	return c, nil
}

// add moves process pid into c's cgroups.
func (c *cgroup) add(pid int) error {
	for _, dir := range c.dirs {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("cgroup: %w", err)
		}
	}
	return nil
}

// remove deletes c's cgroups, which must hold no process any more.
func (c *cgroup) remove() {
	for _, dir := range c.dirs {
		os.Remove(dir)
	}
}

// removeStaleCgroups removes the jail cgroups a kws that is gone left
// (killed before it could): their processes died with it, and an empty
// cgroup's directory is all that stays.
func removeStaleCgroups() {
	own, err := ownCgroups()
	if err != nil {
		return
	}
	for ctrl, path := range own {
		dirs, _ := filepath.Glob(filepath.Join(cgroupRoot, ctrl, path, "kws-jail-*"))
		for _, dir := range dirs {
			var pid, seq int
			if _, err := fmt.Sscanf(filepath.Base(dir), "kws-jail-%d-%d", &pid, &seq); err != nil {
				continue
			}
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); errors.Is(err, os.ErrNotExist) {
				os.Remove(dir)
			}
		}
	}
}

// ownCgroups maps each controller of kws's cgroups ("" for cgroup v2) to
// kws's cgroup path in it, from /proc/self/cgroup.
func ownCgroups() (map[string]string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	own := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctrl := range strings.Split(parts[1], ",") {
			if ctrl == "pids" || ctrl == "memory" || ctrl == "" {
				own[ctrl] = parts[2]
			}
		}
	}
	if len(own) > 1 {
		delete(own, "") // hybrid: the controllers are in cgroup v1
	}
	return own, nil
}
