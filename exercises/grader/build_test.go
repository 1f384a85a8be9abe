package grader

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/internal/testlimit"
)

// A build that runs past the wall-clock limit, or past the CPU time
// limit, is stopped with every process it started, and the limit is
// named. The go command is a stand-in here (a shell script), so that the
// test takes seconds.
func TestBuildLimitsKillTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	// The stand-in answers `go env GOCACHE` with nothing.
	const envAnswer = "[ \"$1\" = env ] && exit 0\n"
	cases := []struct {
		name, script string
		limits       buildLimits
		want         string // the limit named, %v the wall-clock limit
	}{
		{"wall", "#!/bin/sh\n" + envAnswer + "sleep 300 &\necho $! > " + pidFile + "\nwait\n", buildLimits{Wall: 2 * time.Second}, "%v of wall-clock time"},
		{"cpu", "#!/bin/sh\n" + envAnswer + "sleep 300 &\necho $! > " + pidFile + "\nwhile :; do :; done\n", buildLimits{CPUSeconds: 1}, "1 s of CPU time"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			goBin := filepath.Join(dir, "go-"+c.name)
			require.NoError(t, os.WriteFile(goBin, []byte(c.script), 0o755))
			j := &job{bin: filepath.Join(t.TempDir(), "x.test")}
			limits := c.limits
			if limits.Wall == 0 {
				// The CPU limit stops the spin, whatever the load; the
				// wall-clock limit is only the backstop, and must not
				// fire first on a machine that gives the spin little
				// CPU: it is the test's remaining time.
				limits.Wall = testlimit.Legit(t)
			}
			// The script's sleep and wait never end, so a short wall
			// limit stops them whatever the load; but the script must
			// first have started the sleep and written its pid, honest
			// work a starved machine may not finish in time: then the
			// limit doubles and the build runs again, within the
			// test's deadline.
			var b []byte
			for {
				_ = os.Remove(pidFile)
				text, over, err := j.runBuild(Config{Root: dir, build: limits}, goBin, nil)
				require.Error(t, err)
				assert.Contains(t, over, strings.ReplaceAll(c.want, "%v", limits.Wall.String()), "err %v, output %q", err, text)
				if b, err = os.ReadFile(pidFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
					break
				}
				require.Less(t, 2*limits.Wall, testlimit.Legit(t), "the script had not written its pid within %v", limits.Wall)
				t.Logf("no pid written within %v; doubling the limit", limits.Wall)
				limits.Wall *= 2
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			require.NoError(t, err)
			// The background sleep went with its group.
			alive := true
			// The group was killed: the sleep goes by itself, so it may
			// take until the test's deadline.
			for deadline := time.Now().Add(testlimit.Legit(t)); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if err := syscall.Kill(pid, 0); err != nil {
					alive = false
					break
				}
				// A zombie whose parent is gone is reaped by init; one
				// still listed as a zombie is dead too.
				if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
					alive = false
					break
				}
			}
			assert.False(t, alive, "the build's child %d was killed", pid)
		})
	}
	assert.Contains(t, overLimit("link: signal: file size limit exceeded", defaultBuildLimits), "128 MiB for a file")
	assert.Contains(t, overLimit("fatal error: runtime: out of memory", defaultBuildLimits), "3 GiB of memory")
	assert.Empty(t, overLimit("./sine.go:3:1: syntax error", defaultBuildLimits))
}

// A short file with a large initialised array makes a test binary as
// large as the array: the build goes over the file size limit and scores
// 0 with the limit named, while the honest student beside it is graded
// in full.
func TestBuildOfAHugeBinaryScoresZero(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two test binaries")
	}
	root := repoRoot(t)
	needSolutions(t, root)
	class := t.TempDir()
	copyExercise(t, root, filepath.Join(class, "honest"), "01_sine", false)
	copyExercise(t, root, filepath.Join(class, "bloat"), "01_sine", false)
	f := filepath.Join(class, "bloat", "01_sine", "sine.go")
	src, err := os.ReadFile(f)
	require.NoError(t, err)
	// The array is used, so that the linker keeps it: its first byte is 1.
	attack := strings.Replace(string(src), "func Discretize(", "var pad = [64 << 20]byte{1}\n\nfunc Discretize(", 1)
	attack = strings.Replace(attack, "if n < 1 {", "if n < int(pad[0]) {", 1)
	require.NotEqual(t, string(src), attack)
	require.Less(t, len(attack)-len(src), 200, "a few bytes more")
	require.NoError(t, os.WriteFile(f, []byte(attack), 0o644))

	out := t.TempDir()
	book, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 11, Only: []string{"01_sine"}, NoSandbox: true, Hidden: false,
		CacheDir: t.TempDir(), build: buildLimits{FileBytes: 16 << 20}}, Class: class, Out: out, Jobs: 2})
	require.NoError(t, err)
	e := findExercise(t, "01_sine")
	bad := book.Students["bloat"].Cells["01_sine"]
	require.NotNil(t, bad.Result)
	assert.Equal(t, grading.BuildFailed, bad.Result.Status)
	assert.Equal(t, 0, bad.Points)
	assert.Contains(t, bad.Result.Message, "16 MiB for a file it writes")
	good := book.Students["honest"].Cells["01_sine"]
	assert.Equal(t, grading.Graded, good.Result.Status, good.Result.Message)
	assert.Equal(t, e.MaxPoints(), good.Points, "the honest student is graded in full")
}

// The cache keeps its folders within a size, evicting the least recently
// used first; the most recent is kept whatever its size.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	cache := t.TempDir()
	now := time.Now()
	for i, name := range []string{"old", "mid", "new"} {
		d := filepath.Join(cache, name)
		require.NoError(t, os.MkdirAll(d, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(d, "x.test"), make([]byte, 1000), 0o600))
		at := now.Add(time.Duration(i-3) * time.Hour)
		require.NoError(t, os.Chtimes(d, at, at))
	}
	pruneCacheSize(cache, 100, 24*time.Hour, 2500)
	left, err := os.ReadDir(cache)
	require.NoError(t, err)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"mid", "new"}, names, "2000 bytes kept of 3000, the oldest evicted")
}
