package collect

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"stencillab.dev/exercises/gradebook"
)

// Canvas's "Download Submissions" zip holds, at its top, one file per
// file handed in, named
//
//	NAME_[LATE_]USERID_SUBMISSIONID_FILENAME
//
// NAME the student's sortable name ("Last, First") in lower case without
// spaces or punctuation, LATE when the submission came after the due
// date, USERID Canvas's user id, SUBMISSIONID the attachment's id and
// FILENAME the name the student uploaded (with "-N" added before the
// extension of a file uploaded again). A file is handed back with the
// submission's prefix (all but FILENAME), which Canvas's "Re-Upload
// Submissions" attaches to the student's submission.
var canvasName = regexp.MustCompile(`^([^_/]+)_(LATE_)?([0-9]+)_([0-9]+)_(.+)$`)

// Moodle's "Download all submissions" zip holds, with "Download
// submissions in folders", one folder per participant:
//
//	FULL NAME_PARTICIPANTID_assignsubmission_file_/FILE...
//
// (the folder structure the student uploaded kept below it), or without
// it one file per file handed in, the folder's name its prefix:
// FULL NAME_PARTICIPANTID_assignsubmission_file_FILE. PARTICIPANTID is the
// assignment's id of the participant. Moodle's "Upload multiple feedback
// files in a zip" reads files named with that prefix.
var moodleName = regexp.MustCompile(`^(.+)_([0-9]+)_assignsubmission_([a-z]+)_(.*)$`)

// submission is one student's entries in a download, before it is
// mapped to the roster.
type submission struct {
	key        string   // the download's name of the student (the prefix without the file)
	prefix     string   // the prefix the LMS reads back
	candidates []string // roster ids it may be
	late       bool
	files      []*zip.File // entries, with their path below the submission
	rels       []string
	problems   []string
}

// zipBudget bounds what one download may make us read.
type zipBudget struct{ left int64 }

// read reads f, at most limit bytes of it, from the budget; the sizes the
// archive declares are not trusted.
func (z *zipBudget) read(f *zip.File, limit int64) ([]byte, error) {
	if f.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: a symbolic link", ErrUnsafe)
	}
	if !f.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file", ErrUnsafe)
	}
	if f.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("%w: %d bytes, above the limit of %d", ErrLimit, f.UncompressedSize64, limit)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if limit > z.left {
		limit = z.left
	}
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	z.left -= int64(len(b))
	if int64(len(b)) > limit {
		if z.left <= 0 {
			return nil, fmt.Errorf("%w: the download uncompresses to more than %d bytes", ErrLimit, MaxArchiveBytes)
		}
		return nil, fmt.Errorf("%w: more than the %d bytes a file may have", ErrLimit, limit)
	}
	return b, nil
}

// safeName checks a zip entry's name: UTF-8, relative, no '\', no NUL,
// no "." or ".." element, no empty element.
func safeName(name string) error {
	n := strings.TrimSuffix(name, "/")
	switch {
	case n == "" || !utf8.ValidString(n):
		return fmt.Errorf("%w: the name %s is empty or not UTF-8", ErrUnsafe, gradebook.QuoteName(name))
	case strings.ContainsAny(n, "\\\x00"):
		return fmt.Errorf("%w: the name %s has a backslash or a NUL", ErrUnsafe, gradebook.QuoteName(name))
	case strings.HasPrefix(n, "/"):
		return fmt.Errorf("%w: the name %s is absolute", ErrUnsafe, gradebook.QuoteName(name))
	}
	for _, e := range strings.Split(n, "/") {
		if e == "" || e == "." || e == ".." {
			return fmt.Errorf("%w: the name %s leaves its folder or is not clean", ErrUnsafe, gradebook.QuoteName(name))
		}
	}
	return nil
}

// openZip opens a download, bounding its entries.
func openZip(r io.ReaderAt, size int64) (*zip.Reader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && zr == nil {
		return nil, fmt.Errorf("collect: not a zip file: %w", err)
	}
	if len(zr.File) > MaxArchiveEntries {
		return nil, fmt.Errorf("collect: %w: %d entries, above the limit of %d", ErrLimit, len(zr.File), MaxArchiveEntries)
	}
	return zr, nil
}

// Layout tells which LMS made a download from its entries' names:
// KindCanvas, KindMoodle, or "" when it is neither.
func Layout(zr *zip.Reader) string {
	canvas, moodle := 0, 0
	for _, f := range zr.File {
		top, _, _ := strings.Cut(f.Name, "/")
		if moodleName.MatchString(top) {
			moodle++
		} else if !strings.Contains(f.Name, "/") && canvasName.MatchString(f.Name) {
			canvas++
		}
	}
	switch {
	case moodle > canvas:
		return KindMoodle
	case canvas > 0:
		return KindCanvas
	}
	return ""
}

// FromZip collects a download of Canvas or Moodle (see Layout) into
// opt.Out.
func FromZip(r io.ReaderAt, size int64, source string, roster *gradebook.Roster, opt Options) (*Manifest, error) {
	zr, err := openZip(r, size)
	if err != nil {
		return nil, err
	}
	kind := Layout(zr)
	if kind == "" {
		return nil, fmt.Errorf("collect: %s is neither Canvas's \"Download Submissions\" zip (NAME_USERID_SUBMISSIONID_FILE) nor Moodle's \"Download all submissions\" (FULL NAME_ID_assignsubmission_file_)", source)
	}
	return fromZip(zr, kind, source, roster, opt)
}

// FromCanvas collects Canvas's "Download Submissions" zip into opt.Out.
func FromCanvas(r io.ReaderAt, size int64, source string, roster *gradebook.Roster, opt Options) (*Manifest, error) {
	zr, err := openZip(r, size)
	if err != nil {
		return nil, err
	}
	return fromZip(zr, KindCanvas, source, roster, opt)
}

// FromMoodle collects Moodle's "Download all submissions" zip into
// opt.Out.
func FromMoodle(r io.ReaderAt, size int64, source string, roster *gradebook.Roster, opt Options) (*Manifest, error) {
	zr, err := openZip(r, size)
	if err != nil {
		return nil, err
	}
	return fromZip(zr, KindMoodle, source, roster, opt)
}

func fromZip(zr *zip.Reader, kind, source string, roster *gradebook.Roster, opt Options) (*Manifest, error) {
	if err := prepareOut(opt.Out); err != nil {
		return nil, err
	}
	m := &Manifest{Version: ManifestVersion, Kind: kind, Source: source, Deadline: opt.Deadline.UTC(), Collected: opt.now().UTC()}
	match := newMatcher(roster)
	subs := map[string]*submission{}
	var order []string
	for _, f := range zr.File {
		if err := safeName(f.Name); err != nil {
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: f.Name, Reason: err.Error()})
			continue
		}
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		var key, prefix, display, rel string
		late := false
		switch kind {
		case KindCanvas:
			g := canvasName.FindStringSubmatch(f.Name)
			if g == nil || strings.Contains(f.Name, "/") {
				m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: f.Name, Reason: "not named as Canvas names a submitted file (NAME_USERID_SUBMISSIONID_FILE)"})
				continue
			}
			key, display, rel = g[1]+"_"+g[3], g[1], g[5]
			prefix = strings.TrimSuffix(f.Name, g[5])
			late = g[2] != ""
		case KindMoodle:
			top, below, folder := strings.Cut(f.Name, "/")
			g := moodleName.FindStringSubmatch(top)
			if g == nil {
				m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: f.Name, Reason: "not named as Moodle names a participant's submission (FULL NAME_ID_assignsubmission_file_)"})
				continue
			}
			key, display = g[1]+"_"+g[2], g[1]
			prefix = g[1] + "_" + g[2] + "_assignsubmission_" + g[3] + "_"
			rel = g[4]
			if folder {
				rel = below
				if g[4] != "" {
					rel = g[4] + "/" + below
				}
			}
			if rel == "" {
				continue
			}
			late = !opt.Deadline.IsZero() && f.Modified.After(opt.Deadline)
		}
		s := subs[key]
		if s == nil {
			s = &submission{key: key, prefix: prefix}
			if kind == KindCanvas && display == "anon" {
				s.problems = append(s.problems, "an anonymous submission: the download does not say who handed it in")
			} else {
				s.candidates = match.name(display)
			}
			subs[key] = s
			order = append(order, key)
		}
		if late {
			s.late = true
		}
		if prefix != s.prefix && kind == KindCanvas {
			// A second submission id of one user: the prefix of the
			// latest file is kept for the feedback.
			s.prefix = prefix
		}
		s.files = append(s.files, f)
		s.rels = append(s.rels, rel)
	}
	budget := &zipBudget{left: MaxArchiveBytes}
	if err := place(m, subs, order, budget, opt); err != nil {
		return nil, err
	}
	if err := finish(m, roster, opt.Out); err != nil {
		return nil, err
	}
	return m, nil
}

// place maps each submission to its roster row, reads its files and
// writes its snapshot; what cannot be placed goes to the instructor's
// list.
func place(m *Manifest, subs map[string]*submission, order []string, budget *zipBudget, opt Options) error {
	claims := map[string][]string{}
	for _, k := range order {
		if s := subs[k]; len(s.candidates) == 1 && len(s.problems) == 0 {
			claims[s.candidates[0]] = append(claims[s.candidates[0]], k)
		}
	}
	for _, k := range order {
		s := subs[k]
		switch {
		case len(s.problems) > 0:
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: k, Reason: strings.Join(s.problems, "; ")})
			continue
		case len(s.candidates) == 0:
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: k, Reason: "no roster row has this name or login"})
			continue
		case len(s.candidates) > 1:
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: k, Reason: "ambiguous: several roster rows have this name", Candidates: s.candidates})
			continue
		}
		id := s.candidates[0]
		if len(claims[id]) > 1 {
			others := append([]string(nil), claims[id]...)
			sort.Strings(others)
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: k, Reason: fmt.Sprintf("ambiguous: %d submissions (%s) map to the same roster row; none was taken", len(others), strings.Join(others, ", ")), Candidates: []string{id}})
			continue
		}
		snap := newSnapshot()
		var problems []string
		for i, f := range s.files {
			if err := readEntry(snap, f, s.rels[i], budget, opt); err != nil {
				problems = append(problems, s.rels[i]+": "+err.Error())
			}
		}
		h := &Hand{ID: id, From: k, Prefix: s.prefix, Late: s.late}
		if len(snap.files) == 0 {
			why := "nothing in it is an exercise's file or the exercises' notebook"
			if len(problems) > 0 {
				why += ": " + strings.Join(problems, "; ")
			}
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: k, Reason: why, Candidates: []string{id}})
			continue
		}
		_, h.Notebook = snap.files["09_exercises.ipynb"]
		dir := filepath.Join(opt.Out, id)
		if s.late {
			dir = filepath.Join(opt.Out, LateDir, id)
			problems = append([]string{"late, snapshotted into " + LateDir + "/" + id + " and not graded"}, problems...)
		}
		if err := snap.write(dir, h); err != nil {
			return err
		}
		m.Students = append(m.Students, h)
		if len(problems) > 0 {
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: k, Reason: strings.Join(problems, "; "), Candidates: []string{id}})
		}
	}
	return nil
}

// readEntry adds the entry f, at rel below its submission, to snap when it
// is an exercise's file or the exercises' notebook, or the files of those
// a zip the student uploaded holds.
func readEntry(snap *snapshot, f *zip.File, rel string, budget *zipBudget, opt Options) error {
	if strings.HasSuffix(strings.ToLower(rel), ".zip") {
		b, err := budget.read(f, MaxNestedBytes)
		if err != nil {
			return err
		}
		zr, err := openZip(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return err
		}
		var problems []string
		for _, g := range zr.File {
			if strings.HasSuffix(g.Name, "/") {
				continue
			}
			if err := safeName(g.Name); err != nil {
				problems = append(problems, err.Error())
				continue
			}
			t := target(opt.Exercises, g.Name, false)
			if t == "" {
				continue
			}
			if err := readInto(snap, g, t, budget); err != nil {
				problems = append(problems, g.Name+": "+err.Error())
			}
		}
		if len(problems) > 0 {
			return fmt.Errorf("%s", strings.Join(problems, "; "))
		}
		return nil
	}
	t := target(opt.Exercises, rel, !strings.Contains(rel, "/"))
	if t == "" {
		return nil
	}
	return readInto(snap, f, t, budget)
}

func readInto(snap *snapshot, f *zip.File, t string, budget *zipBudget) error {
	b, err := budget.read(f, limitOf(t))
	if err != nil {
		return err
	}
	return snap.add(t, b, f.Modified)
}
