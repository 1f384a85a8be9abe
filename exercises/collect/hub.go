package collect

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/handin"
)

// CopyDir is the folder of a student's home on the hub that holds the
// students' copy of the lab.
const CopyDir = "stencil-lab"

// HubOptions are the options of a collection from the hub's homes.
type HubOptions struct {
	Options
	// Handout is the students' copy as it was handed out: a student whose
	// exercise files are all as handed out but whose exercises' notebook
	// is not is graded on the notebook. Empty: always on the files.
	Handout string
}

// FromHub snapshots, into opt.Out, each roster student's exercise files
// and notebooks as they stand in their home (homes/USER/stencil-lab,
// USER the student's account, UserName): the exercises' files at
// exercises/ID/FILE, every notebook at notebooks/NAME, and the exercises'
// notebook also at the top of the folder when it is what the student
// worked in (see HubOptions.Handout). A student with a file changed after
// the deadline is snapshotted into .late/ID and listed for the
// instructor; a file that is a link, not regular or too large is left out
// and listed. Call it at the deadline: a home is read as it stands.
func FromHub(homes string, roster *gradebook.Roster, opt HubOptions) (*Manifest, error) {
	users, err := UserNames(roster)
	if err != nil {
		return nil, err
	}
	if err := prepareOut(opt.Out); err != nil {
		return nil, err
	}
	m := &Manifest{Version: ManifestVersion, Kind: KindHub, Source: homes, Deadline: opt.Deadline.UTC(), Collected: opt.now().UTC()}
	for _, p := range roster.People {
		u := users[p.ID]
		home := filepath.Join(homes, u)
		copyDir := filepath.Join(home, CopyDir)
		if st, err := os.Lstat(copyDir); err != nil || !st.IsDir() {
			if err == nil && st.Mode()&fs.ModeSymlink != 0 {
				m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: p.ID, Reason: "~/" + CopyDir + " is a symbolic link: nothing was taken"})
			}
			continue
		}
		// Every file is read through the home, opened as an os.Root: a
		// link the student swaps in while it is read cannot lead out of
		// it (to another student's home).
		root, err := os.OpenRoot(home)
		if err != nil {
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: p.ID, Reason: "the home cannot be opened: " + err.Error()})
			continue
		}
		s := newSnapshot()
		h := &Hand{ID: p.ID, From: copyDir}
		var problems []string
		take := func(rel string, limit int64) ([]byte, bool) {
			b, mod, err := readInRoot(root, CopyDir+"/"+rel, limit)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, false
			}
			if err != nil {
				problems = append(problems, rel+": "+err.Error())
				return nil, false
			}
			if mod.After(opt.Deadline) {
				h.Late = true
				problems = append(problems, fmt.Sprintf("%s: changed at %s, after the deadline", rel, mod.UTC().Format("2006-01-02 15:04:05 MST")))
			}
			if err := s.add(rel, b, mod); err != nil {
				problems = append(problems, rel+": "+err.Error())
				return nil, false
			}
			return b, true
		}
		filesAsHandedOut := true
		for _, e := range opt.Exercises {
			for _, f := range e.Files {
				rel := "exercises/" + e.ID + "/" + f
				b, ok := take(rel, MaxSourceBytes)
				if ok && !sameAsHandout(opt.Handout, rel, b) {
					filesAsHandedOut = false
				}
			}
		}
		nbDir := filepath.Join(copyDir, "notebooks")
		if st, err := os.Lstat(nbDir); err == nil && st.IsDir() {
			names, err := notebookNames(nbDir)
			if err != nil {
				problems = append(problems, "notebooks: "+err.Error())
			}
			for _, n := range names {
				b, ok := take("notebooks/"+n, MaxNotebookBytes)
				if ok && n == handin.NotebookName && opt.Handout != "" && filesAsHandedOut && !sameAsHandout(opt.Handout, "notebooks/"+n, b) {
					h.Notebook = true
					_ = s.add(handin.NotebookName, b, s.mod["notebooks/"+n])
				}
			}
		} else if err == nil {
			problems = append(problems, "notebooks: not a folder")
		}
		root.Close()
		if len(s.files) == 0 && len(problems) == 0 {
			continue
		}
		dir := filepath.Join(opt.Out, p.ID)
		if h.Late {
			dir = filepath.Join(opt.Out, LateDir, p.ID)
		}
		if err := s.write(dir, h); err != nil {
			return nil, err
		}
		m.Students = append(m.Students, h)
		if len(problems) > 0 {
			why := strings.Join(problems, "; ")
			if h.Late {
				why = "late, snapshotted into " + LateDir + "/" + p.ID + " and not graded: " + why
			}
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: p.ID, Reason: why})
		}
	}
	if err := finish(m, roster, opt.Out); err != nil {
		return nil, err
	}
	return m, nil
}

// notebookNames lists the notebooks of dir (regular names ending in
// .ipynb), at most MaxNotebooks.
func notebookNames(dir string) ([]string, error) {
	f, err := handin.OpenFolder(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(4096)
	if err != nil && len(names) == 0 {
		return nil, nil
	}
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, ".ipynb") && !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	if len(out) > MaxNotebooks {
		return out[:MaxNotebooks], fmt.Errorf("%w: more than %d notebooks; the first %d were taken", ErrLimit, MaxNotebooks, MaxNotebooks)
	}
	return out, nil
}

// sameAsHandout reports whether b is the handed-out file rel; with no
// handout, whether... nothing is known, so no.
func sameAsHandout(handout, rel string, b []byte) bool {
	if handout == "" {
		return false
	}
	orig, err := handin.ReadBelow(handout, rel, int64(len(b))+1)
	return err == nil && bytes.Equal(orig, b)
}
