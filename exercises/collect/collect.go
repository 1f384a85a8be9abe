// Package collect gathers a class's hand-ins into a class folder that
// `grade -class` grades: from the students' homes on the course's
// JupyterHub (FromHub), from a learning-management system's download
// (FromCanvas, FromMoodle, FromZip) and from a GitHub Classroom checkout
// (FromClassroom). Each hand-in is mapped to a roster row with no renaming
// by hand; an entry that is ambiguous, unknown to the roster or late goes
// to the list of entries that need the instructor, never silently into a
// row. Return hands the graded feedback back: into the homes on the hub,
// and laid out for the LMS's feedback upload.
//
// A collection is a snapshot: the files are copied, read-only, into the
// class folder at the time of the collection, each with its SHA-256 in the
// folder's manifest (.collect/manifest.json), so that a later edit in a
// home changes nothing that is graded, and Verify tells whether the
// snapshot is still what was collected.
//
// Every input is hostile: only the exercises' files and notebooks are
// taken (an allow-list), a symbolic link, a file that is not regular or a
// path that leaves its folder is refused, every file and every archive is
// read through a bounded reader (an archive's declared sizes are not
// trusted), and each refusal names the limit that was broken.
package collect

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
)

// Limits on what one collection reads.
const (
	// MaxSourceBytes bounds an exercise's file, as the grader does.
	MaxSourceBytes = handin.MaxSourceBytes
	// MaxNotebookBytes bounds a notebook (the saved figures make them
	// large).
	MaxNotebookBytes = 32 << 20
	// MaxStudentBytes bounds everything taken from one student.
	MaxStudentBytes = 128 << 20
	// MaxArchiveBytes bounds the uncompressed bytes read from one
	// download (a zip bomb stops here, whatever its headers declare).
	MaxArchiveBytes = 4 << 30
	// MaxArchiveEntries bounds the entries of one download.
	MaxArchiveEntries = 200000
	// MaxNestedBytes bounds a zip a student uploaded inside the download.
	MaxNestedBytes = 64 << 20
	// MaxNotebooks bounds the notebooks taken from one home.
	MaxNotebooks = 64
)

// ManifestDir is the folder of the class folder that holds the
// manifest; the grader ignores it (a hidden entry).
const ManifestDir = ".collect"

// LateDir is the folder of the class folder that holds the late
// hand-ins, snapshotted but not graded until the instructor moves one into
// the class folder.
const LateDir = ".late"

// ManifestVersion is the version of manifest.json's schema.
const ManifestVersion = 1

// File is one file of a snapshot.
type File struct {
	Path     string    `json:"path"` // slash-separated, below the student's folder
	SHA256   string    `json:"sha256"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified,omitzero"` // as the source says (a student can set it)
}

// Hand is one student's collected hand-in.
type Hand struct {
	ID     string `json:"id"`     // the roster's id, the folder's name
	From   string `json:"from"`   // where it came from: the home, the zip entry, the repository
	Prefix string `json:"prefix"` // the LMS's name of the submission (Canvas's or Moodle's), for the feedback upload
	Files  []File `json:"files"`
	SHA256 string `json:"sha256"` // digest of the paths and digests of Files
	Late   bool   `json:"late,omitempty"`
	// Notebook says the graded hand-in is the exercises' notebook, not
	// the exercise files.
	Notebook bool `json:"notebook,omitempty"`
}

// Issue is an entry that needs the instructor: what it is, why, and the
// roster rows it could be.
type Issue struct {
	Entry      string   `json:"entry"`
	Reason     string   `json:"reason"`
	Candidates []string `json:"candidates,omitempty"`
}

// Manifest records one collection.
type Manifest struct {
	Version         int       `json:"version"`
	Kind            string    `json:"kind"` // hub, canvas, moodle, classroom
	Source          string    `json:"source"`
	Deadline        time.Time `json:"deadline"`
	Collected       time.Time `json:"collected"`
	Students        []*Hand   `json:"students"`
	NeedsInstructor []Issue   `json:"needs_instructor"`
	NoHandIn        []string  `json:"no_hand_in"` // roster ids with nothing collected
}

// Options configure a collection.
type Options struct {
	// Exercises are the graded exercises, whose files are taken.
	Exercises []grading.Exercise
	// Deadline: a hand-in changed after it is late.
	Deadline time.Time
	// Out is the class folder written; it must not exist, or be empty.
	Out string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Kinds of collection.
const (
	KindHub       = "hub"
	KindCanvas    = "canvas"
	KindMoodle    = "moodle"
	KindClassroom = "classroom"
)

// ErrLimit marks an input that broke one of the limits.
var ErrLimit = errors.New("over a limit")

// ErrUnsafe marks an input that was refused: a link, a path that leaves
// its folder, a file that is not regular.
var ErrUnsafe = errors.New("refused")

// target maps a path found in a hand-in to where the grader reads it:
// exercises/ID/FILE for an exercise's file, the notebook's name for the
// exercises' notebook, "" for anything else. flat allows a bare file name
// (an LMS flattens the upload), with a resubmission's "-N" suffix.
func target(exs []grading.Exercise, p string, flat bool) string {
	p = path.Clean(strings.TrimPrefix(p, "./"))
	parts := strings.Split(p, "/")
	base := parts[len(parts)-1]
	if n := len(parts); n >= 2 {
		for _, e := range exs {
			if parts[n-2] != e.ID {
				continue
			}
			for _, f := range e.Files {
				if f == base {
					return "exercises/" + e.ID + "/" + f
				}
			}
		}
	}
	if !flat {
		if base == handin.NotebookName && (len(parts) == 1 || parts[len(parts)-2] == "notebooks") {
			return handin.NotebookName
		}
		return ""
	}
	for _, b := range []string{base, unsuffixed(base)} {
		if b == handin.NotebookName {
			return handin.NotebookName
		}
		var hit []string
		for _, e := range exs {
			for _, f := range e.Files {
				if f == b {
					hit = append(hit, "exercises/"+e.ID+"/"+f)
				}
			}
		}
		if len(hit) == 1 {
			return hit[0]
		}
	}
	return ""
}

var resubmission = regexp.MustCompile(`-[0-9]{1,4}(\.[A-Za-z0-9]+)$`)

// unsuffixed drops the "-N" an LMS adds before a resubmitted file's
// extension ("sine-1.go" is "sine.go").
func unsuffixed(base string) string {
	return resubmission.ReplaceAllString(base, "$1")
}

// limitOf is the size limit of a file at target t.
func limitOf(t string) int64 {
	if strings.HasSuffix(t, ".ipynb") {
		return MaxNotebookBytes
	}
	return MaxSourceBytes
}

// snapshot is a student's files on their way into the class folder.
type snapshot struct {
	files map[string][]byte
	mod   map[string]time.Time
	total int64
}

func newSnapshot() *snapshot {
	return &snapshot{files: map[string][]byte{}, mod: map[string]time.Time{}}
}

// add records b at rel, refusing a second file for the same place and a
// student over MaxStudentBytes.
func (s *snapshot) add(rel string, b []byte, mod time.Time) error {
	if _, ok := s.files[rel]; ok {
		return fmt.Errorf("two files for %s", rel)
	}
	if s.total+int64(len(b)) > MaxStudentBytes {
		return fmt.Errorf("%w: more than the %d bytes one student may hand in", ErrLimit, MaxStudentBytes)
	}
	s.total += int64(len(b))
	s.files[rel] = b
	s.mod[rel] = mod
	return nil
}

// write writes the snapshot into dir (which must not exist), each file
// read-only, and returns the hand-in's record.
func (s *snapshot) write(dir string, h *Hand) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("collect: the student's folder: %w", err)
	}
	var rels []string
	for rel := range s.files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	h.Files = nil
	for _, rel := range rels {
		b := s.files[rel]
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("collect: %w", err)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if err != nil {
			return fmt.Errorf("collect: %w", err)
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("collect: %w", err)
		}
		sum := sha256.Sum256(b)
		h.Files = append(h.Files, File{Path: rel, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b)), Modified: s.mod[rel].UTC()})
	}
	h.SHA256 = digest(h.Files)
	return nil
}

// digest is the digest of a hand-in: of each file's path and digest, in
// the order of the paths.
func digest(files []File) string {
	d := sha256.New()
	for _, f := range files {
		fmt.Fprintf(d, "%s\x00%s\n", f.Path, f.SHA256)
	}
	return hex.EncodeToString(d.Sum(nil))
}

// prepareOut checks that out does not exist or is an empty folder, and
// makes it.
func prepareOut(out string) error {
	if out == "" {
		return errors.New("collect: no class folder to write (Options.Out)")
	}
	des, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(out, 0o755)
	case err != nil:
		return fmt.Errorf("collect: the class folder: %w", err)
	case len(des) > 0:
		return fmt.Errorf("collect: the class folder %s is not empty: a collection is a snapshot of its own; give a new folder", out)
	}
	return nil
}

// finish writes the manifest and the instructor's list into out.
func finish(m *Manifest, roster *gradebook.Roster, out string) error {
	got := map[string]bool{}
	for _, h := range m.Students {
		got[h.ID] = true
	}
	m.NoHandIn = nil
	for _, p := range roster.People {
		if !got[p.ID] {
			m.NoHandIn = append(m.NoHandIn, p.ID)
		}
	}
	sort.Slice(m.Students, func(i, j int) bool { return m.Students[i].ID < m.Students[j].ID })
	sort.SliceStable(m.NeedsInstructor, func(i, j int) bool { return m.NeedsInstructor[i].Entry < m.NeedsInstructor[j].Entry })
	if m.Students == nil {
		m.Students = []*Hand{}
	}
	if m.NeedsInstructor == nil {
		m.NeedsInstructor = []Issue{}
	}
	if m.NoHandIn == nil {
		m.NoHandIn = []string{}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("collect: manifest: %w", err)
	}
	dir := filepath.Join(out, ManifestDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	if err := gradebook.WriteFileAtomic(filepath.Join(dir, "manifest.json"), append(b, '\n')); err != nil {
		return fmt.Errorf("collect: manifest: %w", err)
	}
	if err := gradebook.WriteFileAtomic(filepath.Join(dir, "needs-instructor.md"), []byte(m.Report())); err != nil {
		return fmt.Errorf("collect: the instructor's list: %w", err)
	}
	return nil
}

// Report is the collection's summary for the instructor, as Markdown: the
// counts, then every entry that needs the instructor, then the roster's
// people with no hand-in. Every name from the input is escaped.
func (m *Manifest) Report() string {
	var b strings.Builder
	late := 0
	for _, h := range m.Students {
		if h.Late {
			late++
		}
	}
	fmt.Fprintf(&b, "# Collection (%s) at %s, deadline %s\n\n", m.Kind, m.Collected.UTC().Format(time.RFC3339), m.Deadline.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "- collected: %d\n- needs the instructor: %d\n- no hand-in: %d\n\n", len(m.Students), len(m.NeedsInstructor), len(m.NoHandIn))
	b.WriteString("## Needs the instructor\n\n")
	if len(m.NeedsInstructor) == 0 {
		b.WriteString("Nothing.\n")
	}
	for _, is := range m.NeedsInstructor {
		fmt.Fprintf(&b, "- %s: %s", gradebook.CodeSpan(is.Entry), gradebook.Escape(is.Reason))
		if len(is.Candidates) > 0 {
			var cs []string
			for _, c := range is.Candidates {
				cs = append(cs, gradebook.CodeSpan(c))
			}
			fmt.Fprintf(&b, " (could be %s)", strings.Join(cs, ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## No hand-in\n\n")
	if len(m.NoHandIn) == 0 {
		b.WriteString("Nobody.\n")
	}
	for _, id := range m.NoHandIn {
		fmt.Fprintf(&b, "- %s\n", gradebook.CodeSpan(id))
	}
	return b.String()
}

// ReadManifest reads the manifest of the class folder class.
func ReadManifest(class string) (*Manifest, error) {
	b, err := handin.ReadRegular(filepath.Join(class, ManifestDir, "manifest.json"), 256<<20)
	if err != nil {
		return nil, fmt.Errorf("collect: the manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("collect: the manifest: %w", err)
	}
	if m.Version != ManifestVersion {
		return nil, fmt.Errorf("collect: the manifest is version %d, this program reads version %d", m.Version, ManifestVersion)
	}
	return &m, nil
}

// Verify checks that the class folder's files are those its manifest
// records, and returns the paths that differ, are missing or were added.
func Verify(class string) ([]string, error) {
	m, err := ReadManifest(class)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, h := range m.Students {
		dir := filepath.Join(class, h.ID)
		if h.Late {
			dir = filepath.Join(class, LateDir, h.ID)
		}
		want := map[string]string{}
		for _, f := range h.Files {
			want[f.Path] = f.SHA256
		}
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			b, err := handin.ReadRegular(p, MaxNotebookBytes)
			if err != nil {
				bad = append(bad, h.ID+"/"+rel+": "+err.Error())
				return nil
			}
			sum := sha256.Sum256(b)
			w, ok := want[rel]
			switch {
			case !ok:
				bad = append(bad, h.ID+"/"+rel+": not in the manifest")
			case w != hex.EncodeToString(sum[:]):
				bad = append(bad, h.ID+"/"+rel+": changed since the collection")
			}
			delete(want, rel)
			return nil
		})
		if err != nil {
			bad = append(bad, h.ID+": "+err.Error())
		}
		for rel := range want {
			bad = append(bad, h.ID+"/"+rel+": missing")
		}
	}
	sort.Strings(bad)
	return bad, nil
}
