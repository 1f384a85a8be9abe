// The collect stage of one submission: the student files of an exercise,
// read without following links, laid over the repository (job.overlay).

package grader

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"stencillab.dev/exercises/grading"
)

// job is one exercise being graded.
type job struct {
	ex          grading.Exercise
	dir         string
	overlayFile string            // the -overlay JSON, or ""
	replaced    map[string]string // submitted file → the student file it replaces, relative to the repository
	overlayKey  string            // a digest of the overlay's contents
	bin         string            // the test binary
	fail        string            // why it cannot run, or ""
	status      grading.Status
	sources     map[string][]byte       // every student file of the exercise, submitted or the repository's
	key         string                  // the key of its result among the verdicts kept (verdicts.go), or ""
	kept        *grading.ExerciseResult // the result an earlier run kept, or nil
}

// overlay reads the student files (the submission's, or the repository's
// own), refuses links, checks each file statically, copies the submitted
// ones into the private work folder and writes the -overlay file that
// builds the exercise with those copies. A refusal returns the status and
// the message the exercise scores 0 with.
func (j *job) overlay(cfg Config, work string) (grading.Status, error) {
	repl := map[string][]byte{}
	sources := map[string][]byte{} // every student file, submitted or the repository's, for the static check
	for _, f := range j.ex.Files {
		rel := filepath.ToSlash(filepath.Join("exercises", j.ex.ID, f))
		var b []byte
		var err error
		submitted := false
		switch p, ok := cfg.Overlay[rel]; {
		case ok:
			b, err = readRegular(p)
			submitted = true
		case cfg.Submission != "":
			b, err = submissionFile(cfg.Submission, j.ex.ID, f)
			submitted = true
		default:
			b, err = readRegular(filepath.Join(cfg.Root, filepath.FromSlash(rel)))
		}
		if err != nil {
			switch {
			case errors.Is(err, errLink):
				return grading.Rejected, fmt.Errorf("%s: %w", rel, err)
			case errors.Is(err, errMissing):
				return grading.Missing, err
			case refused(err):
				return grading.Rejected, fmt.Errorf("%s: %w", rel, err)
			}
			return grading.NotAvailable, err
		}
		sources[f] = b
		if submitted {
			repl[rel] = b
		}
	}
	j.sources = sources
	if !cfg.skipStaticCheck {
		if st, err := cachedStaticCheck(cfg, j.ex, sources); err != nil {
			return st, err
		}
	}
	if len(repl) == 0 {
		return "", nil
	}
	type overlayJSON struct {
		Replace map[string]string
	}
	ov := overlayJSON{Replace: map[string]string{}}
	h := sha256.New()
	keys := make([]string, 0, len(repl))
	for k := range repl {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dir := filepath.Join(work, j.ex.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return grading.NotAvailable, fmt.Errorf("a private copy of %s: %w", j.ex.ID, err)
	}
	for _, rel := range keys {
		b := repl[rel]
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		cp := filepath.Join(dir, filepath.Base(rel))
		if err := os.WriteFile(cp, b, 0o600); err != nil {
			return grading.NotAvailable, fmt.Errorf("a private copy of %s: %w", rel, err)
		}
		ov.Replace[filepath.Join(cfg.Root, filepath.FromSlash(rel))] = cp
		if j.replaced == nil {
			j.replaced = map[string]string{}
		}
		j.replaced[cp] = rel
	}
	b, err := json.Marshal(ov)
	if err != nil {
		return grading.NotAvailable, fmt.Errorf("overlay for %s: %w", j.ex.ID, err)
	}
	j.overlayFile = filepath.Join(work, j.ex.ID+".overlay.json")
	j.overlayKey = hex.EncodeToString(h.Sum(nil))
	if err := os.WriteFile(j.overlayFile, b, 0o600); err != nil {
		return grading.NotAvailable, fmt.Errorf("overlay for %s: %w", j.ex.ID, err)
	}
	return "", nil
}
