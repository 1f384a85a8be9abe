package grader

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

// flipByte returns a copy of b with the last byte of the first
// occurrence of old changed to to.
func flipByte(t *testing.T, b []byte, old string, to byte) []byte {
	t.Helper()
	i := strings.Index(string(b), old)
	require.GreaterOrEqual(t, i, 0, "%q", old)
	out := append([]byte(nil), b...)
	out[i+len(old)-1] = to
	return out
}

// The key of a verdict changes with every byte of the files, the
// repository's digest, the exercise and what else it depends on; a
// configuration that keeps no binaries keeps no verdicts.
func TestCacheVerdictKey(t *testing.T) {
	cfg := Config{Root: "/repo", CacheDir: t.TempDir(), treeKey: "tree-1"}
	files := map[string][]byte{"a.go": []byte("package a\n"), "b.go": []byte("package a // b\n")}
	k := verdictKey(cfg, "static", "01_sine", files)
	require.Len(t, k, 64)
	assert.Equal(t, k, verdictKey(cfg, "static", "01_sine", map[string][]byte{"b.go": files["b.go"], "a.go": files["a.go"]}), "the order of the files does not count")
	seen := map[string]string{k: "base"}
	differ := func(what, key string) {
		t.Helper()
		require.NotEmpty(t, key, what)
		assert.NotContains(t, seen, key, what)
		seen[key] = what
	}
	for i := range files["b.go"] {
		b := append([]byte(nil), files["b.go"]...)
		b[i] ^= 1
		differ(fmt.Sprintf("byte %d flipped", i), verdictKey(cfg, "static", "01_sine", map[string][]byte{"a.go": files["a.go"], "b.go": b}))
	}
	differ("a file renamed", verdictKey(cfg, "static", "01_sine", map[string][]byte{"a.go": files["a.go"], "c.go": files["b.go"]}))
	differ("a file fewer", verdictKey(cfg, "static", "01_sine", map[string][]byte{"a.go": files["a.go"]}))
	differ("the bytes moved between files", verdictKey(cfg, "static", "01_sine", map[string][]byte{"a.go": []byte("package a\npackage a"), "b.go": []byte(" // b\n")}))
	differ("another exercise", verdictKey(cfg, "static", "03_five_point", files))
	differ("another kind", verdictKey(cfg, "result", "01_sine", files))
	differ("the result of a seed", verdictKey(cfg, "result", "01_sine", files, "7"))
	differ("another seed", verdictKey(cfg, "result", "01_sine", files, "8"))
	c2 := cfg
	c2.treeKey = "tree-2"
	differ("the repository changed", verdictKey(c2, "static", "01_sine", files))
	c2 = cfg
	c2.Root = "/other"
	differ("another repository", verdictKey(c2, "static", "01_sine", files))
	c2 = cfg
	c2.treeKey = ""
	assert.Empty(t, verdictKey(c2, "static", "01_sine", files), "no digest of the repository: nothing kept")
	c2 = cfg
	c2.CacheDir = ""
	assert.Empty(t, verdictKey(c2, "static", "01_sine", files))

	// Kept and read back as written, in a folder only the grader reads.
	r := grading.ExerciseResult{ID: "01_sine", Title: "t", Points: 2, MaxPoints: 3, Status: grading.Graded, Seed: 7,
		Checks: []grading.CheckResult{{ID: "a", Points: 2, MaxPoints: 2, Passed: true, Message: "ok"}, {ID: "b", MaxPoints: 1, Message: "no"}}}
	storeVerdict(cfg, k, r)
	var back grading.ExerciseResult
	require.True(t, loadVerdict(cfg, k, &back))
	assert.Equal(t, r, back)
	st, err := os.Stat(filepath.Join(cfg.CacheDir, "verdicts"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	assert.False(t, loadVerdict(cfg, verdictKey(c2, "x", "y", nil), &back), "no key, no verdict")
	require.NoError(t, os.WriteFile(verdictPath(cfg, k), []byte("{half"), 0o600))
	assert.False(t, loadVerdict(cfg, k, &back), "a verdict that cannot be read is work done again")

	for st, kept := range map[grading.Status]bool{grading.Graded: true, grading.BuildFailed: true, grading.Rejected: true,
		grading.TimedOut: false, grading.OutOfMemory: false, grading.Crashed: false, grading.Panicked: false,
		grading.NotAvailable: false, grading.NeedsGPU: false, grading.Missing: false} {
		assert.Equal(t, kept, keptResult(grading.ExerciseResult{Status: st}), "%s", st)
	}
}

// The static check's verdict is kept: an unchanged file is not checked
// again (the check, pointed at a folder where go list fails, is never
// asked), and one flipped byte checks it again, the verdict changing when
// the change breaks the file.
func TestCacheStaticVerdict(t *testing.T) {
	root := repoRoot(t)
	needSolutions(t, root)
	e := findExercise(t, "01_sine")
	good, err := os.ReadFile(filepath.Join(root, "exercises", e.ID, e.Files[0]))
	require.NoError(t, err)
	cfg := Config{Root: root, CacheDir: t.TempDir(), treeKey: "tree-static"}
	real, _ := statics.Load(root)
	t.Cleanup(func() {
		if real != nil {
			statics.Store(root, real)
		} else {
			statics.Delete(root)
		}
	})
	broken := func() { statics.Store(root, grading.NewStatic(t.TempDir())) } // go list fails there
	fixed := func() { statics.Store(root, grading.NewStatic(root)) }

	fixed()
	st, err := cachedStaticCheck(cfg, e, map[string][]byte{e.Files[0]: good})
	require.NoError(t, err)
	assert.Empty(t, st)
	broken()
	st, err = cachedStaticCheck(cfg, e, map[string][]byte{e.Files[0]: good})
	require.NoError(t, err, "the kept verdict: the check did not run")
	assert.Empty(t, st)
	other := cfg
	other.treeKey = "tree-static-changed"
	st, err = cachedStaticCheck(other, e, map[string][]byte{e.Files[0]: good})
	assert.Equal(t, grading.NotAvailable, st, "a changed repository misses: the check runs (and fails here)")
	require.Error(t, err)

	// One byte flipped: fmt.Errorf becomes fmt.Errorg.
	bad := flipByte(t, good, "fmt.Errorf", 'g')
	require.Equal(t, len(good), len(bad))
	st, err = cachedStaticCheck(cfg, e, map[string][]byte{e.Files[0]: bad})
	assert.Equal(t, grading.NotAvailable, st, "a changed file misses: the check runs")
	require.Error(t, err)
	fixed()
	st, err = cachedStaticCheck(cfg, e, map[string][]byte{e.Files[0]: bad})
	assert.Equal(t, grading.BuildFailed, st)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Errorg")
	broken()
	st2, err2 := cachedStaticCheck(cfg, e, map[string][]byte{e.Files[0]: bad})
	assert.Equal(t, st, st2, "the refusal is kept too")
	require.Error(t, err2)
	assert.Equal(t, err.Error(), err2.Error())
	// A kept verdict of a status the check never keeps is not believed:
	// the check runs (and fails here).
	storeVerdict(cfg, verdictKey(cfg, "static", e.ID, map[string][]byte{e.Files[0]: bad}), staticVerdict{Status: grading.Graded, Message: "forged"})
	st3, err3 := cachedStaticCheck(cfg, e, map[string][]byte{e.Files[0]: bad})
	assert.Equal(t, grading.NotAvailable, st3)
	require.Error(t, err3)
	assert.NotContains(t, err3.Error(), "forged")
	// The toolchain's failure is never kept.
	sub := other
	sub.treeKey = "tree-static-3"
	_, _ = cachedStaticCheck(sub, e, map[string][]byte{e.Files[0]: good})
	assert.False(t, loadVerdict(sub, verdictKey(sub, "static", e.ID, map[string][]byte{e.Files[0]: good}), &staticVerdict{}))
}

// A second run of an unchanged class takes every result from the cache
// (an earlier run's results, marked here, come back as they were kept);
// one byte flipped in a student's file grades that student's exercise
// again, and only that one, and so does a change of the repository.
func TestCacheClassRerun(t *testing.T) {
	root := longRunRoot(t, "builds and runs an exercise for a class")
	needSandbox(t)
	old := classTreeDigest
	tree := "tree-a"
	classTreeDigest = func(string, string) (string, error) { return tree, nil }
	t.Cleanup(func() { classTreeDigest = old })

	class, cache := t.TempDir(), t.TempDir()
	e := findExercise(t, "01_sine")
	for _, s := range []string{"ann", "ben"} {
		writeHonest(t, root, filepath.Join(class, s), e.ID)
		// Each student's file is their own.
		p := filepath.Join(class, s, "exercises", e.ID, e.Files[0])
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, append(b, "// "+s+"\n"...), 0o644))
	}
	grade := func() *Gradebook {
		t.Helper()
		out := t.TempDir()
		_, err := GradeClass(ClassConfig{Grade: Config{Root: root, Only: []string{"01"}, Seed: 7, CacheDir: cache}, Class: class, Out: out})
		require.NoError(t, err)
		return readBook(t, out)
	}
	first := grade()
	for _, s := range []string{"ann", "ben"} {
		c := first.Students[s].Cells[e.ID]
		require.Equal(t, grading.Graded, c.Result.Status, s)
		assert.Equal(t, e.MaxPoints(), c.Points, s)
	}
	// Mark every kept result, to see where the next run's come from.
	const mark = "kept by an earlier run"
	marked := 0
	require.NoError(t, filepath.WalkDir(filepath.Join(cache, "verdicts"), func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var r grading.ExerciseResult
		if json.Unmarshal(b, &r) != nil || len(r.Checks) == 0 {
			return nil // a static verdict
		}
		r.Message = mark
		b, err = json.Marshal(r)
		require.NoError(t, err)
		marked++
		return os.WriteFile(p, b, 0o600)
	}))
	assert.Equal(t, 2, marked, "one result per student")

	second := grade()
	for _, s := range []string{"ann", "ben"} {
		c := second.Students[s].Cells[e.ID]
		assert.Equal(t, mark, c.Result.Message, "%s: the kept result", s)
		assert.Equal(t, first.Students[s].Cells[e.ID].Points, c.Points)
	}

	// ann's file, one byte flipped: graded again, and refused.
	p := filepath.Join(class, "ann", "exercises", e.ID, e.Files[0])
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, flipByte(t, b, "fmt.Errorf", 'g'), 0o644))
	third := grade()
	ann, ben := third.Students["ann"].Cells[e.ID], third.Students["ben"].Cells[e.ID]
	assert.Equal(t, grading.BuildFailed, ann.Result.Status)
	assert.Zero(t, ann.Points)
	assert.Contains(t, ann.Result.Message, "Errorg")
	assert.Equal(t, mark, ben.Result.Message, "ben's files did not change")

	// The repository changed: everyone graded again.
	tree = "tree-b"
	fourth := grade()
	assert.NotEqual(t, mark, fourth.Students["ben"].Cells[e.ID].Result.Message)
	assert.Equal(t, e.MaxPoints(), fourth.Students["ben"].Cells[e.ID].Points)
	assert.Equal(t, grading.BuildFailed, fourth.Students["ann"].Cells[e.ID].Result.Status)
}

// TestCacheFolderOthersMayWrite: a cache folder that others may write to
// (where anyone could leave a verdict or a test binary the next run
// believes) is refused, and one of the owner alone is taken.
func TestCacheFolderOthersMayWrite(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o770, 0o702, 0o720} {
		dir := filepath.Join(t.TempDir(), "cache")
		require.NoError(t, os.Mkdir(dir, 0o700))
		require.NoError(t, os.Chmod(dir, mode))
		_, err := classCache(dir)
		require.Error(t, err, "mode %04o", mode)
		assert.Contains(t, err.Error(), "writable by others", "mode %04o", mode)
		_, err = os.Stat(filepath.Join(dir, "verdicts"))
		assert.True(t, os.IsNotExist(err), "nothing is read or written in a refused folder")
	}
	for _, mode := range []os.FileMode{0o700, 0o755} {
		dir := filepath.Join(t.TempDir(), "cache")
		require.NoError(t, os.Mkdir(dir, 0o700))
		require.NoError(t, os.Chmod(dir, mode))
		got, err := classCache(dir)
		require.NoError(t, err, "mode %04o", mode)
		assert.Equal(t, dir, got)
	}
}

// TestCacheResultKey: the key of a result changes with each setting that
// decides it (the seed, the time and memory limits, the sandbox, the
// static check) besides the files, and never with the kind of verdict.
func TestCacheResultKey(t *testing.T) {
	base := Config{Root: "/repo", CacheDir: t.TempDir(), treeKey: "tree-1", Seed: 7, Timeout: 30 * time.Second, MemBytes: 1 << 30}
	e := grading.Exercise{ID: "01_sine"}
	files := map[string][]byte{"sine.go": []byte("package sine\n")}
	k := resultKey(base, e, files)
	require.Len(t, k, 64)
	assert.Equal(t, k, resultKey(base, e, map[string][]byte{"sine.go": []byte("package sine\n")}), "the same inputs, the same key")
	assert.NotEqual(t, k, verdictKey(base, "static", e.ID, files), "a result is never read as a static verdict")
	seen := map[string]string{k: "base"}
	for what, change := range map[string]func(c *Config){
		"another seed":             func(c *Config) { c.Seed = 8 },
		"another time limit":       func(c *Config) { c.Timeout = 31 * time.Second },
		"another memory limit":     func(c *Config) { c.MemBytes = 1<<30 + 1 },
		"the sandbox on":           func(c *Config) { c.sandbox = "/usr/bin/bwrap" },
		"without the static check": func(c *Config) { c.skipStaticCheck = true },
		"the repository changed":   func(c *Config) { c.treeKey = "tree-2" },
	} {
		c := base
		change(&c)
		got := resultKey(c, e, files)
		require.Len(t, got, 64, what)
		assert.NotContains(t, seen, got, what)
		seen[got] = what
	}
	assert.NotContains(t, seen, resultKey(base, e, map[string][]byte{"sine.go": []byte("package sine\n\n")}), "a file changed")
	assert.NotContains(t, seen, resultKey(base, grading.Exercise{ID: "02_derivative"}, files), "another exercise")
	noTree := base
	noTree.treeKey = ""
	assert.Empty(t, resultKey(noTree, e, files), "no digest of the repository: no result kept")
}

// TestCacheVerdictsInUseSurviveThePrune: the class cache prunes folders
// unused for two weeks by the folder's own time; a verdict read or written
// in an old folder of verdicts (whose prefix folders all exist) marks the
// folder used, and one left alone goes.
func TestCacheVerdictsInUseSurviveThePrune(t *testing.T) {
	cfg := Config{Root: "/repo", CacheDir: t.TempDir(), treeKey: "tree-1"}
	files := map[string][]byte{"sine.go": []byte("package sine\n")}
	k1 := verdictKey(cfg, "static", "01_sine", files)
	k2 := verdictKey(cfg, "static", "02_derivative", files)
	storeVerdict(cfg, k1, staticVerdict{})
	require.NoError(t, os.MkdirAll(filepath.Dir(verdictPath(cfg, k2)), 0o700), "the second key's prefix folder exists already")
	dir := filepath.Join(cfg.CacheDir, "verdicts")
	old := time.Now().Add(-30 * 24 * time.Hour)
	age := func() { require.NoError(t, os.Chtimes(dir, old, old)) }
	survives := func(what string) {
		t.Helper()
		pruneCache(cfg.CacheDir, 1<<20, 14*24*time.Hour)
		_, err := os.Stat(verdictPath(cfg, k1))
		assert.NoError(t, err, what)
	}

	age()
	require.True(t, loadVerdict(cfg, k1, &staticVerdict{}))
	survives("a verdict read")
	age()
	storeVerdict(cfg, k2, staticVerdict{})
	survives("a verdict written")
	age()
	pruneCache(cfg.CacheDir, 1<<20, 14*24*time.Hour)
	_, err := os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "verdicts unused for two weeks go: %v", err)
}

// TestCacheForgedResultIsGradedAgain: a result found under an exercise's
// key is believed only when it is one the grader keeps for that exercise:
// one of another exercise, another total, points that are not its checks'
// sum or a status never kept is graded again.
func TestCacheForgedResultIsGradedAgain(t *testing.T) {
	cfg := Config{Root: "/repo", CacheDir: t.TempDir(), treeKey: "tree-1", Seed: 3}
	e := findExercise(t, "01_sine")
	files := map[string][]byte{e.Files[0]: []byte("package sine\n")}
	key := resultKey(cfg, e, files)
	honest := grading.ExerciseResult{ID: e.ID, Title: e.Title, Status: grading.Graded, Seed: cfg.Seed}
	for _, c := range e.Checks {
		honest.Checks = append(honest.Checks, grading.CheckResult{ID: c.ID, Points: c.Points, MaxPoints: c.Points, Passed: true})
		honest.Points += c.Points
		honest.MaxPoints += c.Points
	}
	require.Positive(t, honest.MaxPoints)
	storeVerdict(cfg, key, honest)
	got := loadResult(cfg, e, key)
	require.NotNil(t, got, "the grader's own result is believed")
	assert.Equal(t, honest, *got)

	for what, forge := range map[string]func(r *grading.ExerciseResult){
		"another exercise": func(r *grading.ExerciseResult) { r.ID = "02_derivative" },
		"another total":    func(r *grading.ExerciseResult) { r.MaxPoints++; r.Checks[0].MaxPoints++ },
		"points not the checks' sum": func(r *grading.ExerciseResult) {
			r.Points++
		},
		"a status never kept": func(r *grading.ExerciseResult) {
			r.Status, r.Points = grading.TimedOut, 0
			for i := range r.Checks {
				r.Checks[i].Points, r.Checks[i].Passed = 0, false
			}
		},
	} {
		r := honest
		r.Checks = slices.Clone(honest.Checks)
		forge(&r)
		storeVerdict(cfg, key, r)
		assert.Nil(t, loadResult(cfg, e, key), what)
	}
	assert.Nil(t, loadResult(cfg, e, ""), "no key, no result")
}

// TestCacheFolderOfAnotherUser: a cache folder that another user owns
// (who may write a verdict or a test binary into it whatever its mode) is
// refused.
func TestCacheFolderOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root, to give a folder to another user")
	}
	dir := filepath.Join(t.TempDir(), "cache")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, os.Chown(dir, 65534, 65534))
	_, err := classCache(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "belongs to another user")
	_, err = os.Stat(filepath.Join(dir, "verdicts"))
	assert.True(t, os.IsNotExist(err), "nothing is read or written in a refused folder")
}
