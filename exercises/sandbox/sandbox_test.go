package sandbox

import (
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envHelper makes the test binary, started in the sandbox, the helper that
// reports what it sees.
const envHelper = "STENCILLAB_SANDBOX_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(envHelper) == "1" {
		os.Exit(helper(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// helper prints what the child sees: its user, working directory,
// environment, limits, whether each path of args can be read, and writes
// "fd3 ok" on descriptor 3 when it has one.
func helper(paths []string) int {
	fmt.Printf("uid=%d\n", os.Getuid())
	wd, _ := os.Getwd()
	fmt.Printf("cwd=%s\n", wd)
	fmt.Printf("env=%s\n", strings.Join(os.Environ(), ","))
	lim, _ := os.ReadFile("/proc/self/limits")
	for _, l := range strings.Split(string(lim), "\n") {
		if strings.HasPrefix(l, "Max data size") || strings.HasPrefix(l, "Max cpu time") ||
			strings.HasPrefix(l, "Max file size") || strings.HasPrefix(l, "Max processes") {
			fmt.Println("limit " + strings.Join(strings.Fields(l), " "))
		}
	}
	for _, p := range paths {
		_, err := os.ReadFile(p)
		fmt.Printf("read %s: %v\n", p, err == nil)
	}
	if f := os.NewFile(3, "result"); f != nil {
		if _, err := io.WriteString(f, "fd3 ok\n"); err == nil {
			fmt.Println("wrote fd3")
		}
	}
	return 0
}

func TestArgsHoldTheSandboxesFlags(t *testing.T) {
	s := Spec{Bin: "/some/child", Args: []string{"-x", "1"}, Env: []string{"A=1", "B=x=y"}}
	a := bwrapArgs(s, gpuView{Roots: []viewRoot{{Path: "/usr"}}, Devices: []string{"/dev/nvidia0"}})
	line := strings.Join(a, " ")
	for _, want := range []string{"--unshare-all", "--die-with-parent", "--new-session", "--uid 65534 --gid 65534",
		"--clearenv", "--tmpfs /tmp", "--chdir /tmp", "--ro-bind /some/child /exercise", "--setenv A 1", "--setenv B x=y"} {
		assert.Contains(t, line, want)
	}
	assert.Equal(t, []string{"/exercise", "-x", "1"}, a[len(a)-3:], "the child and its arguments come last")
	assert.NotContains(t, line, "/usr", "a Go child sees no system folder")
	assert.NotContains(t, line, "nvidia", "a Go child gets no GPU")

	s.GPU = true
	line = strings.Join(bwrapArgs(s, gpuView{Roots: []viewRoot{{Path: "/usr"}, {Path: "/lib", Link: "usr/lib"}}, Devices: []string{"/dev/nvidia0", "/dev/nvidiactl"}}), " ")
	for _, want := range []string{"--ro-bind /usr /usr", "--symlink usr/lib /lib", "--dev-bind /dev/nvidia0 /dev/nvidia0", "--dev-bind /dev/nvidiactl /dev/nvidiactl"} {
		assert.Contains(t, line, want)
	}
	assert.Less(t, strings.Index(line, "--dev /dev"), strings.Index(line, "--dev-bind"), "the device nodes are bound into the new /dev")
	assert.NotContains(t, line, "--bind ", "nothing is bound writable")
	assert.NotContains(t, line, "--ro-bind / /", "the root is never in view")

	s.Wrapper = []string{"/usr/bin/compute-sanitizer", "--tool", "memcheck"}
	a = bwrapArgs(s, gpuView{})
	assert.Equal(t, []string{"/usr/bin/compute-sanitizer", "--tool", "memcheck", "/exercise", "-x", "1"}, a[len(a)-6:], "the wrapper runs the child")
}

func TestLimitArgsCarryEachLimit(t *testing.T) {
	a := limitArgs(Limits{MemBytes: 3 << 30, CPUSeconds: 77, FileBytes: 1000, Procs: 99}, []string{"prog", "arg"})
	assert.Equal(t, []string{"-c", limitScript, "sh", fmt.Sprint(3 << 20), "77", "2", "99", "prog", "arg"}, a)
	d := limitArgs(Limits{}, nil)
	assert.Equal(t, []string{fmt.Sprint(1 << 20), "600", fmt.Sprint(64 << 11), "4096"}, d[3:7], "defaults")
}

func TestNvidiaDevicesAreCharacterDevicesOnly(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nvidia-fake"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "nvidia-other"), 0o755))
	assert.Empty(t, nvidiaDevices(dir), "a regular file or a folder named nvidia* is not a device")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "nvidia-caps"), 0o755))
	assert.Equal(t, []string{filepath.Join(dir, "nvidia-caps")}, nvidiaDevices(dir))
}

func TestProbeSaysWhyThereIsNoSandbox(t *testing.T) {
	_, err := Probe(filepath.Join(t.TempDir(), "no-bwrap"))
	assert.ErrorIs(t, err, errNotInstalled)
}

// TestTheChildSeesOnlyItsBinary runs the test binary as a child in the
// sandbox: nobody, cwd /tmp, only the environment given, the limits set,
// no file of the machine readable, and descriptor 3 passed through.
func TestTheChildSeesOnlyItsBinary(t *testing.T) {
	bwrap, err := Find()
	if err != nil {
		t.Skipf("the sandbox cannot run here: %v", err)
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("x"), 0o644))
	wd, _ := os.Getwd()
	for _, gpu := range []bool{false, true} {
		if !gpu && dynamic(t, exe) {
			t.Log("the test binary is linked dynamically: only the GPU child's view, which holds the system's libraries, can run it")
			continue
		}
		s := Spec{Bin: exe, Args: []string{secret, filepath.Join(wd, "sandbox.go"), "/etc/passwd", "/exercise"},
			Env: []string{envHelper + "=1", "ONLY=this"}, GPU: gpu,
			Limits: Limits{MemBytes: 512 << 20, CPUSeconds: 33, FileBytes: 1 << 20, Procs: 3000}}
		cmd := Command(context.Background(), bwrap, s)
		r, w, err := os.Pipe()
		require.NoError(t, err)
		cmd.ExtraFiles = []*os.File{w}
		var errb strings.Builder
		cmd.Stderr = &errb
		out, err := cmd.Output()
		w.Close()
		fd3, _ := io.ReadAll(r)
		r.Close()
		require.NoError(t, err, "gpu=%v: %s", gpu, errb.String())
		o := string(out)
		assert.Contains(t, o, "uid=65534\n", gpu)
		assert.Contains(t, o, "cwd=/tmp\n", gpu)
		assert.Contains(t, o, "env="+envHelper+"=1,ONLY=this,PWD=/tmp\n", "only the environment given, and bubblewrap's PWD (gpu=%v)", gpu)
		assert.Contains(t, o, "read "+secret+": false", gpu)
		assert.Contains(t, o, "sandbox.go: false", "the repository is out of view (gpu=%v)", gpu)
		assert.Contains(t, o, "read /etc/passwd: false", gpu)
		assert.Contains(t, o, "read /exercise: true", gpu)
		assert.Contains(t, o, "limit Max data size 536870912 536870912 bytes", gpu)
		assert.Contains(t, o, "limit Max cpu time 33 33 seconds", gpu)
		assert.Contains(t, o, "limit Max processes 3000 3000 processes", gpu)
		assert.Regexp(t, `limit Max file size (1048576|2097152) `, o, gpu)
		assert.Equal(t, "fd3 ok\n", string(fd3), "descriptor 3 reaches the child (gpu=%v)", gpu)
		assert.Empty(t, errb.String(), gpu)
	}
}

// dynamic reports whether the program at p needs the dynamic linker.
func dynamic(t *testing.T, p string) bool {
	f, err := elf.Open(p)
	require.NoError(t, err)
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}

// A build sees the machine read only, writes only its folders, and has
// no network; its limits are set before bubblewrap starts.
func TestBuildArgsBindOnlyTheWritableFolders(t *testing.T) {
	b := Build{Argv: []string{"/usr/bin/go", "test", "-c"}, Dir: "/src/repo", Writable: []string{"/cache/go-build", "/cache/bin"},
		Limits: Limits{CPUSeconds: 7, FileBytes: 1 << 20, MemBytes: 1 << 30}}
	a := strings.Join(buildArgs(b), " ")
	assert.Contains(t, a, "--unshare-all")
	assert.Contains(t, a, "--die-with-parent")
	assert.Contains(t, a, "--ro-bind / /")
	assert.Contains(t, a, "--bind /cache/go-build /cache/go-build")
	assert.Contains(t, a, "--bind /cache/bin /cache/bin")
	assert.Equal(t, 2, strings.Count(a, "--bind "), "nothing else is writable")
	assert.True(t, strings.HasSuffix(a, "--chdir /src/repo /usr/bin/go test -c"), a)
	cmd := BuildCommand(context.Background(), "/usr/bin/bwrap", b)
	args := strings.Join(cmd.Args, " ")
	assert.Contains(t, args, "sh 1048576 7 2048 4096 /usr/bin/bwrap --unshare-all", "the limits, then bubblewrap")
	plain := strings.Join(BuildCommand(context.Background(), "", b).Args, " ")
	assert.True(t, strings.HasSuffix(plain, "sh 1048576 7 2048 4096 /usr/bin/go test -c"), plain)
}
