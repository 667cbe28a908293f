package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A jail is the set of namespaces a confined command runs in, on top of
// Landlock: its own user namespace (no capability over the host), PID
// namespace (it sees only its own processes, and they all die with it),
// mount namespace (its own /proc, git metadata read-only, the host's
// Unix sockets covered) and, unless the policy grants the network, its
// own network namespace (a loopback of its own and nothing else).
//
// The process started is kws's own executable as the jail's init. It
// reads a jailSpec from descriptor 3, sets the namespaces up while it
// still holds capabilities inside them, drops every capability, applies
// the resource limits and Landlock, starts the command, reaps every
// process in the namespace, and exits with the command's status, which
// kills whatever the command left behind. kws keeps the other end of
// descriptor 3 open until init has exited: when kws dies, init reads EOF
// and exits, so nothing a command started outlives kws either.

// initArg0 is the argv[0] that turns kws's executable into a jail's init.
const initArg0 = "kws-sandbox-init"

// jailFD is the descriptor init reads its spec from.
const jailFD = 3

// maxMasks bounds the host sockets covered in one jail.
const maxMasks = 4096

// jailSpec is what kws tells a jail's init.
type jailSpec struct {
	Policy Policy
	// Path and Argv are the command to run; Path is resolved already.
	Path string
	Argv []string
	// Probe makes init set the jail up and exit 0 without a command.
	Probe bool
	// OwnNet says the jail has its own network namespace, whose
	// loopback init brings up.
	OwnNet bool
	// Masks are host Unix socket paths to cover with /dev/null.
	Masks []string
}

// jailable reports once whether this machine can build a jail: it starts
// one in probe mode. The error says why not.
var jailable = sync.OnceValue(func() error {
	if os.Getenv(DisableEnv) == "nojail" {
		return fmt.Errorf("turned off by %s=nojail", DisableEnv)
	}
	cmd := exec.Command("/proc/self/exe")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := startJail(cmd, jailSpec{Probe: true, OwnNet: true}); err != nil {
		return err
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("namespaces: %v: %s", err, strings.TrimSpace(out.String()))
	}
	return nil
})

// startJailed starts cmd in a jail confined by p.
func startJailed(cmd *exec.Cmd, p Policy) error {
	if len(cmd.ExtraFiles) > 0 {
		return errors.New("sandbox: a jailed command cannot take extra files")
	}
	spec := jailSpec{Policy: p, Path: cmd.Path, Argv: cmd.Args, OwnNet: !p.Network,
		Masks: hostSockets([]string{p.Workspace, p.Temp})}
	return startJail(cmd, spec)
}

// startJail starts init for spec in new namespaces in place of cmd's
// program; cmd's Dir, Env and standard streams pass to the command.
func startJail(cmd *exec.Cmd, spec jailSpec) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	defer r.Close()
	cmd.Path, cmd.Args = "/proc/self/exe", []string{initArg0}
	cmd.ExtraFiles = []*os.File{r}
	attr := cmd.SysProcAttr
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	} else {
		c := *attr
		attr = &c
	}
	attr.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC
	if spec.OwnNet {
		attr.Cloneflags |= unix.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	if uid != 0 {
		// A non-root init keeps, across its execve, the two
		// capabilities it needs inside its namespaces.
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN}
	}
	cmd.SysProcAttr = attr
	// Without a cgroup, init's RLIMIT_NPROC still bounds the processes
	// of a user other than root, counted in the jail's user namespace.
	cg, cgErr := newCgroup(spec.Policy.Limits)
	if cgErr != nil {
		cg = &cgroup{}
	}
	if err := cmd.Start(); err != nil {
		w.Close()
		cg.remove()
		return fmt.Errorf("sandbox: start: %w", err)
	}
	// init starts the command only once it has read its spec: by then
	// it is in the cgroups, and so is everything the command starts.
	err = cg.add(cmd.Process.Pid)
	if err == nil {
		var b []byte
		if b, err = json.Marshal(spec); err == nil {
			_, err = w.Write(append(b, '\n'))
		}
	}
	if err != nil {
		w.Close()
		cmd.Process.Kill()
		return fmt.Errorf("sandbox: hand the jail its command: %w", err)
	}
	pid := cmd.Process.Pid
	go func() {
		// Wait without reaping (cmd.Wait reaps), then let go of the
		// pipe whose EOF tells init that kws is gone.
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		w.Close()
		cg.remove()
	}()
	return nil
}

// hostSockets lists the paths of the Unix sockets bound on this host
// (from /proc/net/unix) that lie outside the given trees.
func hostSockets(inside []string) []string {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() && len(out) < maxMasks {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || !strings.HasPrefix(fields[7], "/") {
			continue // unbound, or abstract (the network namespace has its own)
		}
		path := strings.Join(fields[7:], " ")
		if slices.ContainsFunc(inside, func(dir string) bool { return dir != "" && within(path, resolve(dir)) }) ||
			slices.Contains(out, path) {
			continue
		}
		out = append(out, path)
	}
	return out
}

// runInit is the jail's init; it never returns.
func runInit() {
	code, err := jailInit()
	if err != nil {
		fmt.Fprintf(os.Stderr, "kws sandbox: %v\n", err)
		os.Exit(126)
	}
	os.Exit(code)
}

// jailInit sets the jail up, runs the command and returns its status.
func jailInit() (int, error) {
	unix.CloseOnExec(jailFD)
	in := bufio.NewReader(os.NewFile(jailFD, "jail"))
	line, err := in.ReadBytes('\n')
	if err != nil {
		return 0, fmt.Errorf("read the jail spec: %w", err)
	}
	var spec jailSpec
	if err := json.Unmarshal(line, &spec); err != nil {
		return 0, fmt.Errorf("jail spec: %w", err)
	}
	if err := setUp(spec); err != nil {
		return 0, err
	}
	if spec.Probe {
		return 0, nil
	}
	go func() {
		// EOF: kws is gone; exiting kills every process in the jail.
		io.Copy(io.Discard, in)
		os.Exit(137)
	}()
	// Landlock and the dropped capabilities hold for this thread and
	// the command it starts; init's main goroutine stays on it.
	runtime.LockOSThread()
	if err := applyLimits(spec.Policy.Limits); err != nil {
		return 0, err
	}
	if err := dropCaps(); err != nil {
		return 0, err
	}
	spec.Policy.ownNet = spec.OwnNet
	if err := confine(spec.Policy); err != nil {
		return 0, err
	}
	var absent []string
	for _, f := range spec.Policy.Forbidden {
		if _, err := os.Lstat(f); errors.Is(err, os.ErrNotExist) {
			absent = append(absent, f)
		}
	}
	dir, _ := os.Getwd()
	child, err := syscall.ForkExec(spec.Path, spec.Argv, &syscall.ProcAttr{
		Dir: dir, Env: os.Environ(), Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	code := -1
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.ECHILD) && code >= 0 {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("wait: %w", err)
		}
		if pid != child {
			continue // an orphan the command left: reaped
		}
		code = ws.ExitStatus()
		if ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		// The command is done: so is everything it left running.
		// From the jail's PID 1, -1 reaches every process in the jail.
		syscall.Kill(-1, syscall.SIGKILL)
	}
	for _, f := range absent {
		if _, err := os.Lstat(f); err == nil {
			err := os.RemoveAll(f)
			fmt.Fprintf(os.Stderr, "kws: removed %s (agent commands may not create git metadata)", f)
			if err != nil {
				fmt.Fprintf(os.Stderr, ": %v", err)
			}
			fmt.Fprintln(os.Stderr)
		}
	}
	return code, nil
}

// setUp builds the jail's mounts and network while init still holds its
// capabilities inside the namespaces.
func setUp(spec jailSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount a private /proc: %w", err)
	}
	if spec.OwnNet {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("bring up the jail's loopback: %w", err)
		}
	}
	for _, path := range spec.Masks {
		// A socket that went away, or a path init cannot reach (and so
		// neither can the command), needs no cover.
		unix.Mount("/dev/null", path, "", unix.MS_BIND, "")
	}
	for _, path := range spec.Policy.ReadOnly {
		if err := bindReadOnly(path); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("make %s read-only: %w", path, err)
		}
	}
	return nil
}

// bindReadOnly makes path read-only in this mount namespace by binding it
// onto itself and remounting the bind read-only. The flags the mount
// already has (nosuid, nodev, noexec) are kept: a user namespace may not
// drop them.
func bindReadOnly(path string) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range [][2]int64{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME},
		{unix.ST_RELATIME, unix.MS_RELATIME}} {
		if st.Flags&f[0] != 0 {
			flags |= uintptr(f[1])
		}
	}
	return unix.Mount("", path, "", flags, "")
}

// loopbackUp sets the jail's lo interface up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// dropCaps empties this thread's capability bounding and ambient sets, so
// the command, root or not, holds no capability even inside the jail.
func dropCaps() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	// A non-root command loses its capabilities at execve anyway, and
	// init, not being root, lacks CAP_SETPCAP to drop them earlier.
	for c := 0; os.Getuid() == 0 && c <= lastCap(); c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if _, _, errno := unix.RawSyscall(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return fmt.Errorf("capset: %w", errno)
	}
	return nil
}

// lastCap is the highest capability this kernel knows.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	var n int
	if err != nil || func() error { _, err := fmt.Sscanf(string(b), "%d", &n); return err }() != nil {
		return 63
	}
	return n
}

// cgroupLimits reports once whether a jail's processes and memory can be
// bounded by cgroups here; the error says why not.
var cgroupLimits = sync.OnceValue(func() error {
	removeStaleCgroups()
	cg, err := newCgroup(Limits{Processes: 1, MemoryMB: 1})
	if err != nil {
		return err
	}
	cg.remove()
	return nil
})
