// Package sandbox runs a grader's child, the program that carries a
// student's code, inside bubblewrap (Debian's package bubblewrap, installed
// by scripts/install-sandbox.sh, or a bwrap binary named by STENCILLAB_BWRAP).
//
// The same sandbox holds the children of the Go exercises and of the CUDA
// ones. The child runs as the unprivileged user 65534 (nobody) in new
// user, pid, network, IPC, UTS and cgroup namespaces (--unshare-all: no
// network), in a session of its own (--new-session), and dies with the
// grader (--die-with-parent): when it ends, its pid namespace ends and
// every process it started ends with it. Its environment is cleared
// (--clearenv) and holds only what the caller gives. It sees its own binary
// (read only, at /exercise), /dev with the null, zero and random devices,
// its own /proc, and an empty private /tmp, its working directory: nothing
// of the repository, no solution, no hidden check. Before bubblewrap starts,
// the shell that starts it sets the limits, which hold inside: memory
// (RLIMIT_DATA), CPU time (RLIMIT_CPU), file size (RLIMIT_FSIZE) and
// processes (RLIMIT_NPROC).
//
// A child on the GPU (Spec.GPU) sees, besides, the system's libraries read
// only (/usr, /lib, /lib64, /usr/local/nvidia when present, the dynamic
// linker's cache and /etc/alternatives) for the CUDA driver and NVRTC, and
// the NVIDIA device nodes /dev/nvidia* bound into its /dev: no other
// device, and nothing else of /etc.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// envBwrap names a bubblewrap program to use instead of bwrap from the
// PATH (a binary carried to a machine where bubblewrap is not installed).
const envBwrap = "STENCILLAB_BWRAP"

// nobodyID is the user the child runs as: nobody.
const nobodyID = "65534"

// exePath is where the child's binary appears inside the sandbox.
const exePath = "/exercise"

// Limits bound a child. A zero field takes its default.
type Limits struct {
	// MemBytes is RLIMIT_DATA: the heap and every private writable
	// mapping. Default 1 GiB.
	MemBytes int64
	// CPUSeconds is RLIMIT_CPU, the CPU time of each process. Default 600.
	CPUSeconds int64
	// FileBytes is RLIMIT_FSIZE, the largest file the child may write.
	// Default 64 MiB.
	FileBytes int64
	// Procs is RLIMIT_NPROC: the processes and threads of the user that
	// starts the sandbox, counted before the child's own. Default 4096.
	Procs int64
}

// withDefaults returns l with every zero field set to its default.
func (l Limits) withDefaults() Limits {
	if l.MemBytes <= 0 {
		l.MemBytes = 1 << 30
	}
	if l.CPUSeconds <= 0 {
		l.CPUSeconds = 600
	}
	if l.FileBytes <= 0 {
		l.FileBytes = 64 << 20
	}
	if l.Procs <= 0 {
		l.Procs = 4096
	}
	return l
}

// Spec is one child: its binary, arguments, environment and limits.
type Spec struct {
	// Bin is the child's program on this machine; inside it is exePath.
	Bin string
	// Args are its arguments.
	Args []string
	// Env is its whole environment (NAME=value).
	Env []string
	// Limits bound it.
	Limits Limits
	// GPU gives it the system's libraries and the NVIDIA device nodes.
	GPU bool
	// Wrapper, when not empty, is a program and its arguments that run
	// the child (compute-sanitizer): inside the sandbox the command is
	// Wrapper, then exePath and Args. Its program must be in the child's view
	// (under /usr for a GPU child).
	Wrapper []string
}

// limitScript is the shell program that sets the limits ($1 … $4: data in
// KiB, CPU seconds, file size in 512-byte blocks, processes) and executes
// the rest of its arguments. dash names the process limit -p, bash -u. A
// limit that cannot be set is said on stderr, in one line each.
const limitScript = `ulimit -d "$1" 2>/dev/null || echo "grade: no memory limit on this system" >&2
ulimit -t "$2" 2>/dev/null || echo "grade: no CPU time limit on this system" >&2
ulimit -f "$3" 2>/dev/null || echo "grade: no file size limit on this system" >&2
{ ulimit -u "$4" || ulimit -p "$4"; } 2>/dev/null || echo "grade: no process limit on this system" >&2
shift 4
exec "$@"`

// limitArgs returns the arguments of /bin/sh that set l and run argv.
func limitArgs(l Limits, argv []string) []string {
	l = l.withDefaults()
	a := []string{"-c", limitScript, "sh",
		fmt.Sprint(l.MemBytes / 1024), fmt.Sprint(l.CPUSeconds), fmt.Sprint((l.FileBytes + 511) / 512), fmt.Sprint(l.Procs)}
	return append(a, argv...)
}

// bwrapArgs returns bubblewrap's arguments for s (everything after the
// bwrap program's name): the namespaces, the views, the environment, then
// exePath and s.Args. For a GPU child, view's system folders are shown
// read only and its NVIDIA device nodes bound (see hostGPUView).
func bwrapArgs(s Spec, view gpuView) []string {
	a := []string{
		"--unshare-all",
		"--die-with-parent",
		"--new-session",
		"--uid", nobodyID, "--gid", nobodyID,
		"--clearenv",
	}
	if s.GPU {
		for _, r := range view.Roots {
			if r.Link != "" {
				a = append(a, "--symlink", r.Link, r.Path)
			} else {
				a = append(a, "--ro-bind", r.Path, r.Path)
			}
		}
	}
	a = append(a,
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--ro-bind", s.Bin, exePath,
	)
	if s.GPU {
		for _, d := range view.Devices {
			a = append(a, "--dev-bind", d, d)
		}
	}
	a = append(a, "--chdir", "/tmp")
	for _, kv := range s.Env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	a = append(a, s.Wrapper...)
	return append(append(a, exePath), s.Args...)
}

// viewRoot is a system folder shown to a GPU child: bound read only, or, when
// it is a symbolic link on this machine (/lib → usr/lib), made the same
// link.
type viewRoot struct {
	Path string
	Link string // the link's target, or "" for a bound folder
}

// gpuView is what a GPU child sees of the machine besides its own files.
type gpuView struct {
	Roots   []viewRoot // read-only system folders
	Devices []string   // /dev/nvidia* device nodes
}

// gpuRoots are the system folders a GPU child may see, when present: the
// programs and libraries (compute-sanitizer runs the child, and starts
// helpers of its own), the dynamic linker's cache, and /etc/alternatives,
// through which /usr/local/cuda is often a link.
var gpuRoots = []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/usr/local/nvidia", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives"}

// hostGPUView returns the view of a GPU child on this machine: the folders of
// gpuRoots that exist, and the NVIDIA device nodes (character devices named
// /dev/nvidia*, and the folder /dev/nvidia-caps when present).
func hostGPUView() gpuView {
	var v gpuView
	for _, p := range gpuRoots {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			t, err := os.Readlink(p)
			if err != nil {
				continue
			}
			v.Roots = append(v.Roots, viewRoot{Path: p, Link: t})
			continue
		}
		if strings.HasPrefix(p, "/usr/") && insideBound(p, v.Roots) {
			continue // already in view through /usr
		}
		v.Roots = append(v.Roots, viewRoot{Path: p})
	}
	v.Devices = nvidiaDevices("/dev")
	return v
}

// insideBound reports whether p is under a folder of roots already bound.
func insideBound(p string, roots []viewRoot) bool {
	for _, r := range roots {
		if r.Link == "" && strings.HasPrefix(p, r.Path+"/") {
			return true
		}
	}
	return false
}

// nvidiaDevices returns the character devices dev/nvidia* and the folder
// dev/nvidia-caps, sorted.
func nvidiaDevices(dev string) []string {
	m, _ := filepath.Glob(filepath.Join(dev, "nvidia*"))
	var out []string
	for _, p := range m {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		switch {
		case fi.Mode()&os.ModeCharDevice != 0:
			out = append(out, p)
		case fi.IsDir() && filepath.Base(p) == "nvidia-caps":
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Command returns the command that runs s inside the sandbox made by the
// bubblewrap program bwrap, under s's limits. Its environment is only
// PATH, for the shell that sets the limits; the child's is s.Env.
func Command(ctx context.Context, bwrap string, s Spec) *exec.Cmd {
	var view gpuView
	if s.GPU {
		view = hostGPUView()
	}
	argv := append([]string{bwrap}, bwrapArgs(s, view)...)
	cmd := exec.CommandContext(ctx, "/bin/sh", limitArgs(s.Limits, argv)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	return cmd
}

// Unsandboxed returns the command that runs s under its limits without a
// sandbox (-unsafe-no-sandbox, or a machine where bubblewrap cannot run):
// in the system's temporary folder, with s.Env and PATH as its whole
// environment.
func Unsandboxed(ctx context.Context, s Spec) *exec.Cmd {
	argv := append(append(append([]string(nil), s.Wrapper...), s.Bin), s.Args...)
	cmd := exec.CommandContext(ctx, "/bin/sh", limitArgs(s.Limits, argv)...)
	cmd.Env = append(append([]string(nil), s.Env...), "PATH=/usr/bin:/bin")
	cmd.Dir = os.TempDir()
	return cmd
}

// Build is a build of a student's code by the go command (compile and
// link): it runs no student code, but a student's file can make the
// compiler or the linker work without end, fill the memory or write a
// binary of gigabytes. It runs under Limits like a child, in a process
// group of its own that the caller kills as a whole (the command returned
// leaves SysProcAttr to the caller).
type Build struct {
	// Argv is the program and its arguments.
	Argv []string
	// Env is its whole environment.
	Env []string
	// Dir is its working directory.
	Dir string
	// Writable are the folders it may write (the go build cache, the
	// output's folder, its temporary folder); in the sandbox everything
	// else is read only.
	Writable []string
	// Limits bound each of its processes.
	Limits Limits
}

// buildArgs returns bubblewrap's arguments for b: new namespaces (no
// network), the machine's files read only, b.Writable writable, its own
// /dev and /proc.
func buildArgs(b Build) []string {
	a := []string{
		"--unshare-all",
		"--die-with-parent",
		"--new-session",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
	}
	for _, w := range b.Writable {
		a = append(a, "--bind", w, w)
	}
	a = append(a, "--chdir", b.Dir)
	return append(a, b.Argv...)
}

// BuildCommand returns the command that runs the build b under its
// limits: inside the sandbox of the bubblewrap program bwrap, or, when
// bwrap is "", without one (-unsafe-no-sandbox).
func BuildCommand(ctx context.Context, bwrap string, b Build) *exec.Cmd {
	argv := b.Argv
	if bwrap != "" {
		argv = append([]string{bwrap}, buildArgs(b)...)
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", limitArgs(b.Limits, argv)...)
	cmd.Env = append([]string(nil), b.Env...)
	cmd.Dir = b.Dir
	return cmd
}

var (
	probeOnce sync.Once
	found     string
	foundErr  error
)

// Find returns the path of a bubblewrap that can make the sandbox on this
// machine (STENCILLAB_BWRAP's, else bwrap from the PATH), or why there is
// none. The answer is worked out once.
func Find() (string, error) {
	probeOnce.Do(func() {
		name := "bwrap"
		if p := os.Getenv(envBwrap); p != "" {
			name = p
		}
		found, foundErr = Probe(name)
	})
	return found, foundErr
}

// errNotInstalled is the error of Probe when there is no bubblewrap.
var errNotInstalled = errors.New("bubblewrap (bwrap) is not installed (scripts/install-sandbox.sh installs it)")

// Probe returns the path of the bubblewrap program name (a path, or a name
// looked up on the PATH) if it can make the sandbox here, or why not.
func Probe(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", errNotInstalled
	}
	// The probe makes the same namespaces as a child's sandbox, with the
	// system's folders in view to find echo.
	cmd := exec.CommandContext(context.Background(), p, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--tmpfs", "/tmp", "--unshare-all", "--die-with-parent", "--new-session", "--uid", nobodyID, "--gid", nobodyID,
		"--clearenv", "/bin/echo", "sandbox ok")
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "sandbox ok") {
		return "", fmt.Errorf("bubblewrap cannot make a sandbox here (%v): %s", err, strings.TrimSpace(firstLines(string(out), 3)))
	}
	return p, nil
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}
