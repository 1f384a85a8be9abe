// Package gradebook is the gradebook of a class graded by `grade -class`:
// its schema (gradebook.json), the merge of a later run into an earlier
// one, the files written from it (gradebook.csv, feedback/STUDENT.md,
// leaderboard.md), the run's summary, and the challenge's leaderboard
// that notebooks draw.
//
// Everything a student handed in, and everything a student's process
// said, is hostile text here: every cell of gradebook.csv is safe to open
// in a spreadsheet (no formula), and the feedback escapes Markdown and
// HTML, so that a student's text can inject no tag, link or emphasis and
// cannot leave a code block.
//
// The gradebook is a table of students by exercises whose cells keep how
// they were graded: a row (Student) is keyed by the student's id, and the
// CSV is made from Table, so that an export to a learning-management
// system, a roster that maps ids to people, and the merge of the parts of
// a class graded on several machines (Merge) all start from one schema.
package gradebook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"stencillab.dev/exercises/grading"
)

// Cell states.
const (
	// StateGraded: the exercise was graded; its points count (0 for a
	// submission that failed, was refused or is missing).
	StateGraded = "graded"
	// StateNeedsGPU: the exercise can only be graded on a machine with a
	// GPU; its points are withheld (not zero) until a run there fills the
	// cell in.
	StateNeedsGPU = "needs_gpu"
	// StateError: the grader could not grade it (the toolchain, the
	// machine); the cell is empty until a later run grades it.
	StateError = "error"
	// StateWithheld: a CUDA exercise of a hand-in that holds no CUDA file
	// at all (a student of the Go part of the course): withheld, not
	// zero, so that the total is out of what was graded; a later run on
	// a hand-in with the files fills it in.
	StateWithheld = "withheld"
)

// Version is the version of gradebook.json's format.
const Version = 1

// MaxFileBytes bounds a gradebook.json read back (a class of a thousand
// students with every check's message is a few tens of MiB).
const MaxFileBytes = 256 << 20

// Book is gradebook.json: every student's result per exercise. A later
// run with the same output folder merges into it (see Merge).
type Book struct {
	Version   int                 `json:"version"`
	Seed      uint64              `json:"seed"` // the seed of the latest run
	Runs      []Run               `json:"runs"`
	Exercises []Exercise          `json:"exercises"`
	Students  map[string]*Student `json:"students"`
	// Roster is the roster of the latest run that had one: an export
	// gives its people without a hand-in a row of empty cells, without
	// the roster passed again.
	Roster []*Person `json:"roster,omitempty"`

	// leaderboardID and leaderboardKey are the leaderboard published
	// with the feedback, and the key of its pseudonyms (SetLeaderboard).
	leaderboardID  string
	leaderboardKey []byte
	// canvasColumns maps exercises to Canvas's assignment numbers, for
	// the Canvas export (SetCanvasColumns).
	canvasColumns CanvasColumns
}

// Run records one run of the class grading.
type Run struct {
	Seed     uint64 `json:"seed"`
	Started  string `json:"started"` // RFC 3339, UTC
	Students int    `json:"students"`
	Sandbox  bool   `json:"sandbox"`
	// Shard is the part of the class graded ("i/n"), or "" for all.
	Shard string `json:"shard,omitempty"`
	// NeedsInstructor lists the hand-in folders the run graded onto no
	// one's row, each with the reason: names that are one after case
	// folding and Unicode normalisation, a derived id that is another
	// folder's name, a folder the roster does not list, two folders that
	// claim one roster row.
	NeedsInstructor []string `json:"needs_instructor,omitempty"`
}

// Exercise is a column of the gradebook.
type Exercise struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	MaxPoints int    `json:"max_points"`
}

// Student is a row of the gradebook.
type Student struct {
	ID string `json:"id"`
	// Folder is the name of the hand-in (the entry of the class folder)
	// when it is not the id: a name that is not a valid id gets an id
	// derived from it (see DeriveID).
	Folder    string `json:"folder,omitempty"`
	Source    string `json:"source"`     // "files", "notebook" or "refused"
	Points    int    `json:"points"`     // graded cells, overrides applied
	MaxPoints int    `json:"max_points"` // every exercise, graded or not
	// GradedMax is the maximum of the cells whose points count (Points is
	// out of it); WithheldMax that of the cells not graded yet (withheld
	// for the GPU, or left empty by the grader).
	GradedMax   int              `json:"graded_max"`
	WithheldMax int              `json:"withheld_max"`
	Complete    bool             `json:"complete"` // every cell graded
	Seconds     float64          `json:"seconds"`  // time of the latest run
	Note        string           `json:"note,omitempty"`
	Cells       map[string]*Cell `json:"cells"`
	// Person is who the hand-in belongs to, from the roster, when there
	// was one.
	Person *Person `json:"person,omitempty"`
	// SHA256 is a digest of the files handed in (their paths and
	// contents); Files lists each with its size and modification time.
	SHA256 string      `json:"sha256,omitempty"`
	Files  []FileStamp `json:"files,omitempty"`
}

// FileStamp is one handed-in file: its path in the hand-in, its size and
// its modification time (RFC 3339, UTC).
type FileStamp struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	Modified string `json:"modified"`
	SHA256   string `json:"sha256"` // of the file's contents
}

// SetFiles sets the student's files, in the order of their paths, and
// SHA256, the digest of their paths and contents' digests.
func (s *Student) SetFiles(files []FileStamp) {
	files = append([]FileStamp(nil), files...)
	sort.Slice(files, func(a, b int) bool { return files[a].Path < files[b].Path })
	s.Files, s.SHA256 = nil, ""
	if len(files) == 0 {
		return
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\n", f.Path, f.SHA256)
	}
	s.Files, s.SHA256 = files, hex.EncodeToString(h.Sum(nil))
}

// mergeFiles is the union of two lists of files, b's replacing a's of the
// same path.
func mergeFiles(a, b []FileStamp) []FileStamp {
	byPath := map[string]FileStamp{}
	for _, f := range a {
		byPath[f.Path] = f
	}
	for _, f := range b {
		byPath[f.Path] = f
	}
	out := make([]FileStamp, 0, len(byPath))
	for _, f := range byPath {
		out = append(out, f)
	}
	return out
}

// LastModified is the latest modification time of the files handed in,
// or "".
func (s *Student) LastModified() string {
	last := ""
	for _, f := range s.Files {
		if f.Modified > last {
			last = f.Modified
		}
	}
	return last
}

// Sources of a row.
const (
	// SourceFiles: the student handed in the exercise files.
	SourceFiles = "files"
	// SourceNotebook: the student handed in the exercises' notebook.
	SourceNotebook = "notebook"
	// SourceRefused: the hand-in was refused as a whole (a link, a file
	// where a folder should be, an unreadable notebook); Note says why
	// and every cell scores 0.
	SourceRefused = "refused"
)

// Cell is one student's result on one exercise.
type Cell struct {
	State     string                  `json:"state"` // graded, needs_gpu or error
	Points    int                     `json:"points"`
	MaxPoints int                     `json:"max_points"`
	Seed      uint64                  `json:"seed"`
	Result    *grading.ExerciseResult `json:"result,omitempty"`
	Override  *Override               `json:"override,omitempty"`
}

// Override is an instructor's score for a cell, replacing the grader's.
type Override struct {
	Points int    `json:"points"`
	Reason string `json:"reason"`
	Was    int    `json:"was"` // the grader's points
}

// Score is the cell's points, the override's when there is one.
func (c *Cell) Score() int {
	if c.Override != nil {
		return c.Override.Points
	}
	return c.Points
}

// Counts reports whether the cell's points count in the total: it was
// graded, or an instructor gave its points.
func (c *Cell) Counts() bool {
	return c != nil && (c.State == StateGraded || c.Override != nil)
}

// StateOf is the state of a cell holding the exercise's result r.
func StateOf(r grading.ExerciseResult) string {
	switch r.Status {
	case grading.NotAvailable:
		return StateError
	case grading.NeedsGPU:
		return StateNeedsGPU
	}
	return StateGraded
}

// NewCell is the cell of the exercise's result r.
func NewCell(r grading.ExerciseResult) *Cell {
	st := StateOf(r)
	c := &Cell{State: st, Points: r.Points, MaxPoints: r.MaxPoints, Seed: r.Seed, Result: &r}
	if st != StateGraded {
		c.Points = 0
	}
	return c
}

// New returns an empty gradebook of the exercises exs.
func New(exs []Exercise) *Book {
	return &Book{Version: Version, Exercises: append([]Exercise(nil), exs...), Students: map[string]*Student{}}
}

// Merge puts the cells of run into g: a graded cell replaces what was
// there; a needs_gpu or error cell replaces only a cell that is not
// graded, so that a later run on another machine can fill in what an
// earlier one withheld without losing what it graded. Overrides stay.
func (g *Book) Merge(run *Book) {
	if g.Students == nil {
		g.Students = map[string]*Student{}
	}
	g.Version, g.Seed = Version, run.Seed
	g.Runs = append(g.Runs, run.Runs...)
	if len(run.Roster) > 0 {
		g.Roster = run.Roster
	}
	have := map[string]bool{}
	for _, e := range g.Exercises {
		have[e.ID] = true
	}
	for _, e := range run.Exercises {
		if !have[e.ID] {
			g.Exercises = append(g.Exercises, e)
			have[e.ID] = true
			continue
		}
		for i := range g.Exercises {
			if g.Exercises[i].ID == e.ID {
				g.Exercises[i] = e
			}
		}
	}
	sort.Slice(g.Exercises, func(a, b int) bool { return g.Exercises[a].ID < g.Exercises[b].ID })
	for id, s := range run.Students {
		old, ok := g.Students[id]
		if !ok || old == nil {
			g.Students[id] = s
			continue
		}
		old.Source, old.Seconds, old.Folder, old.Note = s.Source, s.Seconds, s.Folder, s.Note
		// The files of both runs: a run of some exercises replaces the
		// files it read and keeps the others'.
		old.SetFiles(mergeFiles(old.Files, s.Files))
		if s.Person != nil {
			old.Person = s.Person
		}
		if old.Cells == nil {
			old.Cells = map[string]*Cell{}
		}
		for ex, c := range s.Cells {
			prev, ok := old.Cells[ex]
			if ok && prev != nil && prev.State == StateGraded && c.State != StateGraded {
				continue
			}
			if ok && prev != nil && prev.Override != nil && c.Override == nil {
				c.Override = prev.Override
			}
			old.Cells[ex] = c
		}
	}
	g.Recount()
}

// Recount recomputes every student's points, maximum and completeness
// from the cells.
func (g *Book) Recount() {
	for _, s := range g.Students {
		s.Points, s.MaxPoints, s.GradedMax, s.WithheldMax, s.Complete = 0, 0, 0, 0, true
		for _, e := range g.Exercises {
			s.MaxPoints += e.MaxPoints
			c := s.Cells[e.ID]
			if c == nil || c.State != StateGraded {
				s.Complete = false
			}
			if c.Counts() {
				s.Points += c.Score()
				s.GradedMax += e.MaxPoints
			} else {
				s.WithheldMax += e.MaxPoints
			}
		}
	}
}

// StudentIDs returns the students' ids in order.
func (g *Book) StudentIDs() []string {
	ids := make([]string, 0, len(g.Students))
	for id := range g.Students {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// idRE is a valid student id: letters, digits, '.', '_' and '-', starting
// with a letter or a digit, at most 64 characters.
var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// emailRE is an id that is an email address: a local part of letters,
// digits, '.', '_', '+' and '-', an '@', and a domain of labels of letters,
// digits and '-' joined by dots; at most 128 characters (checked apart).
var emailRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}@[A-Za-z0-9]([A-Za-z0-9-]{0,62}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$`)

// ValidID reports whether id may name a student (and a feedback file):
// a plain id, or an email address (EmailID), which a class run accepts
// as a folder's name only when the roster lists it.
func ValidID(id string) bool { return idRE.MatchString(id) || EmailID(id) }

// EmailID reports whether id is an id in the form of an email address:
// safe as a file name (no '/', no "..", no leading dot) and in a CSV cell.
func EmailID(id string) bool {
	return len(id) <= 128 && !strings.Contains(id, "..") && emailRE.MatchString(id)
}

// Read reads gradebook.json at path; a file that does not exist gives an
// error that wraps fs.ErrNotExist.
func Read(path string) (*Book, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, b)
}

// ReadVerified reads gradebook.json at path as Read does, and believes it
// only when the MAC beside it (path + MACSuffix) is the one the
// instructor's key gives its bytes: a part of a class graded apart that
// someone else wrote or edited is refused.
func ReadVerified(path string) (*Book, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	mac, err := os.ReadFile(path + MACSuffix)
	if err != nil {
		return nil, fmt.Errorf("gradebook: %s has no MAC of the grader (%s): %w", path, filepath.Base(path)+MACSuffix, err)
	}
	key, err := InstructorKey()
	if err != nil {
		return nil, fmt.Errorf("gradebook: %w", err)
	}
	if !checkMAC(key, b, mac) {
		p, _ := KeyPath()
		return nil, fmt.Errorf("gradebook: %s was not written by the grader with this instructor's key (%s): its MAC does not match, so it was edited, forged, or graded with another key", path, p)
	}
	return parse(path, b)
}

// readFile reads a regular file of at most MaxFileBytes.
func readFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("gradebook: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("gradebook: %s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gradebook: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("gradebook: %s: %w", path, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("gradebook: %s has more than the %d bytes a gradebook may have", path, MaxFileBytes)
	}
	return b, nil
}

// parse decodes gradebook.json's bytes b, read from path.
func parse(path string, b []byte) (*Book, error) {
	g := &Book{}
	if err := json.Unmarshal(b, g); err != nil {
		return nil, fmt.Errorf("gradebook: %s: %w", path, err)
	}
	if g.Version != Version {
		return nil, fmt.Errorf("gradebook: %s has version %d, not %d", path, g.Version, Version)
	}
	if g.Students == nil {
		g.Students = map[string]*Student{}
	}
	for id, s := range g.Students {
		if s == nil || s.ID != id || !ValidID(id) {
			return nil, fmt.Errorf("gradebook: %s: the student %q is not a valid row", path, id)
		}
	}
	return g, nil
}

// ReadIfExists reads gradebook.json in the folder out, or returns an
// empty gradebook when there is none.
func ReadIfExists(out string) (*Book, error) {
	g, err := Read(filepath.Join(out, "gradebook.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return &Book{Students: map[string]*Student{}}, nil
	}
	return g, err
}

// Write writes gradebook.json (with its MAC under the instructor's key,
// gradebook.json.mac: see InstructorKey), gradebook.csv,
// feedback/STUDENT.md and feedback/STUDENT.html into the folder out, each
// file atomically. It writes every file it can, and
// returns the errors of those it could not.
func (g *Book) Write(out string) error {
	var errs []error
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		errs = append(errs, fmt.Errorf("gradebook.json: %w", err))
	} else {
		b = append(b, '\n')
		// The MAC goes first and the gradebook second: a reader never
		// sees a new gradebook beside an old MAC that would pass.
		key, kerr := InstructorKey()
		if kerr != nil {
			errs = append(errs, fmt.Errorf("gradebook.json's MAC: %w", kerr))
			_ = os.Remove(filepath.Join(out, "gradebook.json"+MACSuffix))
		} else if err := WriteFileAtomic(filepath.Join(out, "gradebook.json"+MACSuffix), []byte(MAC(key, b)+"\n")); err != nil {
			errs = append(errs, err)
		}
		if err := WriteFileAtomic(filepath.Join(out, "gradebook.json"), b); err != nil {
			errs = append(errs, err)
		}
	}
	var csvb bytes.Buffer
	if err := g.WriteCSV(&csvb); err != nil {
		errs = append(errs, fmt.Errorf("gradebook.csv: %w", err))
	} else if err := WriteFileAtomic(filepath.Join(out, "gradebook.csv"), csvb.Bytes()); err != nil {
		errs = append(errs, err)
	}
	if err := os.MkdirAll(filepath.Join(out, "feedback"), 0o755); err != nil {
		errs = append(errs, fmt.Errorf("the feedback folder: %w", err))
		return errors.Join(errs...)
	}
	for _, id := range g.StudentIDs() {
		if !ValidID(id) {
			errs = append(errs, fmt.Errorf("feedback: %q is not a valid student id", id))
			continue
		}
		if err := WriteFileAtomic(filepath.Join(out, "feedback", id+".md"), []byte(g.Feedback(g.Students[id]))); err != nil {
			errs = append(errs, err)
		}
		if err := WriteFileAtomic(filepath.Join(out, "feedback", id+".html"), []byte(g.FeedbackHTML(g.Students[id]))); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// WriteFileAtomic writes b to path through a temporary file renamed over
// it, so that a reader never sees half a file.
func WriteFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// DeriveID returns a valid student id for a hand-in whose name is not one
// (spaces, accents, markup, control characters, a leading dot or dash, a
// name too long): the name's letters, digits, '.', '_' and '-', others
// replaced by '_', cut to 40 bytes, then '-' and the first hex digits of
// the name's SHA-256, as many as make it differ from every id taken
// reports as used.
func DeriveID(name string, taken func(string) bool) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	base := strings.TrimLeft(b.String(), "._-")
	if base == "" {
		base = "x"
	}
	sum := sha256.Sum256([]byte(name))
	h := hex.EncodeToString(sum[:])
	for n := 8; ; n += 4 {
		id := base + "-" + h[:n]
		if taken == nil || !taken(id) || n >= 20 {
			return id
		}
	}
}
