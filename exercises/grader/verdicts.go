package grader

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// A class run keeps, besides the test binaries, what it found for each
// submission: the static check's verdict, and the result of an exercise
// whose outcome the same inputs repeat. Both are keyed, as the test
// binaries are, by a digest of the repository's files and the go
// command's version and environment (Config.treeKey), the grader's build
// (with or without the hidden checks), the exercise and the contents of
// every student file of it; a result also by the seed and the limits. So
// a second run of an unchanged class runs neither `go list` nor the
// checks again, and any change to a submitted file or to the repository
// misses. Only a run that keeps its binaries (treeKey set) keeps
// verdicts, in the grader's own cache folder (0700), which no child can
// reach: the children run in the sandbox, seeing only their binary.

// verdictVersion changes when what is kept, or how, changes.
const verdictVersion = "verdict-1"

// verdictKey is the key of a verdict of kind ("static", "result") on
// exercise ex with the student files files (a name to its contents),
// under cfg: "" when cfg keeps no verdicts. extra adds what else the
// verdict depends on.
func verdictKey(cfg Config, kind, ex string, files map[string][]byte, extra ...string) string {
	if cfg.treeKey == "" || cfg.CacheDir == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00hidden=%v\x00", verdictVersion, kind, cfg.treeKey, cfg.Root, ex, checks.HiddenIncluded())
	for _, x := range extra {
		fmt.Fprintf(h, "%s\x00", x)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// verdictPath is where the verdict of key is kept.
func verdictPath(cfg Config, key string) string {
	return filepath.Join(cfg.CacheDir, "verdicts", key[:2], key+".json")
}

// loadVerdict reads the verdict of key into v; false when there is none
// (or it cannot be read: the work is then done again).
func loadVerdict(cfg Config, key string, v any) bool {
	if key == "" {
		return false
	}
	p := verdictPath(cfg, key)
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	if json.Unmarshal(b, v) != nil {
		return false
	}
	touchVerdicts(cfg)
	return true
}

// touchVerdicts marks the folder of the verdicts used now: pruneCache
// judges the cache's folders by their own time, which a verdict read, or
// written into a folder of verdicts that exists, does not change.
func touchVerdicts(cfg Config) {
	now := time.Now()
	_ = os.Chtimes(filepath.Join(cfg.CacheDir, "verdicts"), now, now)
}

// storeVerdict keeps v as the verdict of key, through a temporary file
// renamed into place, so that a reader never sees half of it. A verdict
// that cannot be kept is only work done again next time.
func storeVerdict(cfg Config, key string, v any) {
	if key == "" {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	p := verdictPath(cfg, key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".verdict-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), p) != nil {
		os.Remove(f.Name())
		return
	}
	touchVerdicts(cfg)
}

// staticVerdict is the static check's verdict on a submission: the status
// and message the exercise scores 0 with, or an empty status when the
// files may be built.
type staticVerdict struct {
	Status  grading.Status `json:"status,omitempty"`
	Message string         `json:"message,omitempty"`
}

// cachedStaticCheck is staticCheck, whose verdict a class run keeps: an
// unchanged submission in an unchanged repository is not checked again.
// A check that could not run (the toolchain's failure) is not kept, and a
// kept verdict of another status is not believed.
func cachedStaticCheck(cfg Config, e grading.Exercise, files map[string][]byte) (grading.Status, error) {
	key := verdictKey(cfg, "static", e.ID, files)
	var v staticVerdict
	if loadVerdict(cfg, key, &v) && (v.Status == "" || v.Status == grading.BuildFailed || v.Status == grading.Rejected) {
		if v.Status == "" {
			return "", nil
		}
		return v.Status, fmt.Errorf("%s", v.Message)
	}
	st, err := staticCheck(cfg.Root, e, files)
	switch {
	case err == nil:
		storeVerdict(cfg, key, staticVerdict{})
	case st == grading.BuildFailed || st == grading.Rejected:
		storeVerdict(cfg, key, staticVerdict{Status: st, Message: err.Error()})
	}
	return st, err
}

// resultKey is the key of the result of exercise e on the student files
// files under cfg: its seed and limits count besides.
func resultKey(cfg Config, e grading.Exercise, files map[string][]byte) string {
	return verdictKey(cfg, "result", e.ID, files, fmt.Sprint(cfg.Seed), cfg.Timeout.String(), fmt.Sprint(cfg.MemBytes),
		fmt.Sprintf("sandbox=%v", cfg.sandbox != ""), fmt.Sprintf("static=%v", !cfg.skipStaticCheck))
}

// loadResult is the result of exercise e kept under key, or nil. One that
// is not a result this grader keeps for e (another exercise, another total,
// points that are not its checks' sum, a status never kept) is not
// believed, and the exercise is graded again.
func loadResult(cfg Config, e grading.Exercise, key string) *grading.ExerciseResult {
	var r grading.ExerciseResult
	if !loadVerdict(cfg, key, &r) || r.ID != e.ID || r.MaxPoints != e.MaxPoints() || !keptResult(r) || r.Validate() != nil {
		return nil
	}
	return &r
}

// keptResult reports whether a result is one the same inputs repeat, and
// so may be kept: every check ran (graded), or the files were refused or
// did not compile. A time limit, a memory limit, a crash or the grader's
// own failure depend on the machine, and are graded again.
func keptResult(r grading.ExerciseResult) bool {
	switch r.Status {
	case grading.Graded, grading.BuildFailed, grading.Rejected:
		return true
	}
	return false
}
