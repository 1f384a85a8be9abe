package grader

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/gradebook"
)

// envDeviceDir makes the fake GPU child record, in the folder it names,
// the device it was given and whether another child held it at the
// same time (onDevice).
const envDeviceDir = "STENCILLAB_FAKE_GPU_DEVICES"

// onDevice runs child as the child of the device CUDA_VISIBLE_DEVICES
// names, and records in dir: busy-DEV exists while it runs, so that a
// second child on the same device at once finds it and leaves
// overlap-DEV-PID; used-DEV-PID records each use.
func onDevice(dir string, child func() int) int {
	dev := os.Getenv("CUDA_VISIBLE_DEVICES")
	if dev == "" {
		dev = "default"
	}
	busy := filepath.Join(dir, "busy-"+dev)
	f, err := os.OpenFile(busy, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("overlap-%s-%d", dev, os.Getpid())), nil, 0o600)
		return child()
	}
	f.Close()
	_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("used-%s-%d", dev, os.Getpid())), nil, 0o600)
	code := child()
	_ = os.Remove(busy)
	return code
}

// devicesRecorded returns how many children used each device, and the
// overlaps, from the records of onDevice in dir.
func devicesRecorded(t *testing.T, dir string) (used map[string]int, overlaps []string) {
	t.Helper()
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	used = map[string]int{}
	for _, de := range des {
		parts := strings.Split(de.Name(), "-")
		switch parts[0] {
		case "used":
			used[parts[1]]++
		case "overlap":
			overlaps = append(overlaps, de.Name())
		}
	}
	return used, overlaps
}

// withDevices makes the driver report n GPUs to this process.
func withDevices(t *testing.T, n int) {
	t.Helper()
	old := deviceCount
	deviceCount = func() int { return n }
	t.Cleanup(func() { deviceCount = old })
}

func TestGPUsResolve(t *testing.T) {
	withDevices(t, 4)
	for _, c := range []struct {
		spec string
		want []int
	}{{"", nil}, {"all", []int{0, 1, 2, 3}}, {" all ", []int{0, 1, 2, 3}}, {"2", []int{2}}, {"3,1", []int{3, 1}}} {
		got, err := resolveGPUs(c.spec)
		require.NoError(t, err, c.spec)
		assert.Equal(t, c.want, got, c.spec)
	}
	_, err := resolveGPUs("1,4")
	assert.ErrorContains(t, err, "device 4 does not exist: the driver sees 4 device(s), 0 to 3")
	_, err = resolveGPUs("0,0")
	assert.ErrorContains(t, err, "named twice")

	// Without a GPU, all means none (the default device, where the CUDA
	// cells are withheld), and a list is kept for the children to try.
	withDevices(t, 0)
	got, err := resolveGPUs("all")
	require.NoError(t, err)
	assert.Nil(t, got)
	got, err = resolveGPUs("5,7")
	require.NoError(t, err)
	assert.Equal(t, []int{5, 7}, got)
}

// Each child is told its device; where the grader is itself given
// CUDA_VISIBLE_DEVICES, its device i is the i-th entry of that list.
func TestGPUsChildDevice(t *testing.T) {
	t.Setenv("CUDA_VISIBLE_DEVICES", "")
	assert.Equal(t, "", childDevice(""))
	assert.Equal(t, "3", childDevice("3"))
	assert.Contains(t, cudaEnv(true, "2"), "CUDA_VISIBLE_DEVICES=2")
	for _, kv := range cudaEnv(true, "") {
		assert.False(t, strings.HasPrefix(kv, "CUDA_VISIBLE_DEVICES="), "the default device: %s", kv)
	}
	t.Setenv("CUDA_VISIBLE_DEVICES", "4, 6,GPU-0f3c")
	assert.Equal(t, "4, 6,GPU-0f3c", childDevice(""), "the default device is the grader's")
	assert.Equal(t, "6", childDevice("1"))
	assert.Equal(t, "GPU-0f3c", childDevice("2"))
	assert.Contains(t, cudaEnv(false, "0"), "CUDA_VISIBLE_DEVICES=4")
}

// The pool never gives a device to two users at once, and lets as many
// work at once as it has devices.
func TestGPUsPoolOneUserPerDevice(t *testing.T) {
	for _, n := range []int{1, 3, 4} {
		devs := make([]int, n)
		for i := range devs {
			devs[i] = 7 - i // any ordinals
		}
		p := newDevicePool(devs)
		require.Equal(t, n, p.size())
		var want []string
		for i := n - 1; i >= 0; i-- {
			want = append(want, fmt.Sprint(devs[i]))
		}
		assert.Equal(t, want, p.names(), "in order")
		var (
			mu      sync.Mutex
			busy    = map[string]bool{}
			used    = map[string]int{}
			now     int
			most    int
			overlap bool
			wg      sync.WaitGroup
		)
		rng := rand.New(rand.NewPCG(uint64(n), 9))
		for range 6 * n {
			d := time.Duration(rng.IntN(3)+1) * time.Millisecond
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.use(func(dev string, lock sync.Locker) {
					require.True(t, lock.(*sync.Mutex).TryLock(), "the device's lock is free for its holder")
					mu.Lock()
					overlap = overlap || busy[dev]
					busy[dev], now = true, now+1
					most = max(most, now)
					used[dev]++
					mu.Unlock()
					time.Sleep(d)
					mu.Lock()
					busy[dev], now = false, now-1
					mu.Unlock()
					lock.Unlock()
				})
			}()
		}
		wg.Wait()
		assert.False(t, overlap, "%d devices: two users of one device at once", n)
		assert.LessOrEqual(t, most, n)
		assert.Len(t, used, n, "every device is used")
		for _, d := range devs {
			assert.Positive(t, used[fmt.Sprint(d)], "device %d", d)
		}
	}
	p := newDevicePool(nil)
	assert.Equal(t, 1, p.size(), "no device named: the default one")
	p.use(func(dev string, _ sync.Locker) { assert.Equal(t, "", dev) })
}

// A class of CUDA hand-ins graded with -gpus all on a machine whose
// driver reports four GPUs (children that answer as a GPU would): no two
// children on one device at once, every device used, and the gradebook
// the same as with -gpus 0.
func TestGPUsClassSpreadOverDevices(t *testing.T) {
	root := repoRoot(t)
	class := t.TempDir()
	launch := "#define BLOCK_X 8\n#define BLOCK_Y 8\n#define BLOCK_Z 1\n#define TILE_X 8\n#define TILE_Y 8\n#define TILE_Z 8\n"
	modes := []string{cudacheck.FakeHonest, cudacheck.FakeSwap, cudacheck.FakeNothing, cudacheck.FakeHalo}
	var ids []string
	for i := range 8 {
		id := fmt.Sprintf("s%02d", i+1)
		ids = append(ids, id)
		mode := modes[i%len(modes)]
		for _, f := range []string{"20_cuda_basic/basic.cu", "25_cuda_challenge/challenge.cu"} {
			src := "// " + id + "\n"
			if strings.HasPrefix(f, "25") {
				src += launch
			}
			if mode != "" {
				src += "// stand-in: " + mode + "\n"
			}
			p := filepath.Join(class, id, "exercises", f)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		}
	}
	fakeGPU(t, "61.5", "")
	gradeWith := func(gpus string) (string, *Gradebook, map[string]int, []string) {
		rec, out := t.TempDir(), t.TempDir()
		cudaTestEnv = []string{envFakeGPU + "=61.5", envDeviceDir + "=" + rec}
		// Outside the sandbox, so that the children can leave their
		// records.
		none := func() (string, error) { return "", errors.New("no sandbox: the children record their devices") }
		_, err := GradeClass(ClassConfig{Grade: Config{Root: root, Only: []string{"20", "25"}, Seed: 11, GPUs: gpus, NoSandbox: true, sandboxProbe: none},
			Class: class, Out: out, Jobs: 1})
		require.NoError(t, err, gpus)
		used, overlaps := devicesRecorded(t, rec)
		b, err := os.ReadFile(filepath.Join(out, "gradebook.csv"))
		require.NoError(t, err)
		return string(b), readBook(t, out), used, overlaps
	}
	oneCSV, one, used, overlaps := gradeWith("0")
	assert.Empty(t, overlaps)
	assert.Equal(t, map[string]int{"0": 16}, used, "-gpus 0: every child on device 0")

	withDevices(t, 4)
	allCSV, all, used, overlaps := gradeWith("all")
	assert.Empty(t, overlaps, "two children on one device at once")
	keys := sortedKeys(used)
	assert.Equal(t, []string{"0", "1", "2", "3"}, keys, "every device is used")
	total := 0
	for _, n := range used {
		total += n
	}
	assert.Equal(t, 16, total, "one child per submission")

	assert.Equal(t, oneCSV, allCSV, "the same gradebook on one GPU and on four")
	for _, id := range ids {
		for ex, c := range one.Students[id].Cells {
			d := all.Students[id].Cells[ex]
			require.NotNil(t, d, "%s %s", id, ex)
			assert.Equal(t, c.State, d.State)
			assert.Equal(t, c.Points, d.Points, "%s %s", id, ex)
			assert.Equal(t, checkOutcomes(c), checkOutcomes(d), "%s %s", id, ex)
		}
	}
	// The stand-ins differ: the honest one gets full marks on 25, the
	// one whose kernel writes nothing does not.
	max25 := findExercise(t, "25_cuda_challenge").MaxPoints()
	assert.Equal(t, max25, one.Students["s01"].Cells["25_cuda_challenge"].Points)
	assert.Less(t, one.Students["s03"].Cells["25_cuda_challenge"].Points, max25)
}

// checkOutcomes lists a cell's checks as id, pass and points.
func checkOutcomes(c *gradebook.Cell) []string {
	var out []string
	if c.Result == nil {
		return nil
	}
	for _, ch := range c.Result.Checks {
		out = append(out, fmt.Sprintf("%s %v %d", ch.ID, ch.Passed, ch.Points))
	}
	sort.Strings(out)
	return out
}

// FuzzResolveGPUs: -gpus never panics; what it accepts is "", all, or
// distinct device numbers from 0 to 255 that the driver has (where it
// reports any).
func FuzzResolveGPUs(f *testing.F) {
	for _, s := range []string{"", "all", "0", "0,1,2,3", "3,1", " 2 , 5", "0,0", "-1", "256", "a", ",", "all,0", "1,,2"} {
		f.Add(s, uint8(4))
	}
	f.Fuzz(func(t *testing.T, spec string, n uint8) {
		old := deviceCount
		deviceCount = func() int { return int(n % 9) }
		defer func() { deviceCount = old }()
		devs, err := resolveGPUs(spec)
		if err != nil {
			assert.Nil(t, devs)
			return
		}
		seen := map[int]bool{}
		for _, d := range devs {
			assert.False(t, seen[d], "device %d twice", d)
			seen[d] = true
			assert.True(t, d >= 0 && d <= 255, "device %d", d)
			if n%9 > 0 {
				assert.Less(t, d, int(n%9))
			}
		}
		p := newDevicePool(devs)
		assert.Equal(t, max(1, len(devs)), p.size())
	})
}
