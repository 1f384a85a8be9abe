// The identify stage of a class: one entry per student folder, named by
// the roster, refused with the reason when it cannot be one, split by
// -shard.

package grader

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/handin"
)

// classEntry is one entry of the class folder: a student's folder, or
// something else that gets a row of zeros with the reason.
type classEntry struct {
	id      string            // the student's id: the roster's, the folder's name, or one derived from it
	name    string            // the entry's name in the class folder
	dir     string            // its path
	refused string            // why the hand-in is refused as a whole, or ""
	person  *gradebook.Person // the roster's row it is, or nil
}

// classEntries lists the class folder without a roster (see
// classEntriesOf).
func classEntries(class, out string) (entries []classEntry, ignored, needs []string, err error) {
	return classEntriesOf(class, out, nil)
}

// classEntriesOf maps the class folder's entries to students before
// anyone is graded, one to one. The hidden entries (a leading '.') and
// the output folder are ignored, with the reason. With a roster, an
// entry is the person whose id or email its name folds to (FoldName:
// case and Unicode normalisation aside), under the roster's id; without
// one, a plain id is its own id and any other name gets an id derived
// from it (DeriveID). What cannot be mapped so goes to needs, with the
// reason, onto no one's row: names that fold alike, a derived id that is
// another entry's name, an entry the roster does not list, two entries
// that claim one roster row.
func classEntriesOf(class, out string, roster *gradebook.Roster) (entries []classEntry, ignored, needs []string, err error) {
	des, err := os.ReadDir(class)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the class folder: %w", err)
	}
	outAbs, _ := filepath.Abs(out)
	var names []string
	for _, de := range des {
		name := de.Name()
		p := filepath.Join(class, name)
		if abs, err := filepath.Abs(p); err == nil && abs == outAbs {
			ignored = append(ignored, gradebook.QuoteName(name)+" (the output folder)")
			continue
		}
		if strings.HasPrefix(name, ".") {
			ignored = append(ignored, gradebook.QuoteName(name)+" (a hidden entry)")
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	// Every name a folder stands for: its own, and the id it would be
	// graded under. Two folders that share one, folded, are one person
	// to the file system of some machine, or to the LMS.
	claims := map[string][]string{}
	id := map[string]string{}
	person := map[string]*gradebook.Person{}
	for _, name := range names {
		keys := []string{gradebook.FoldName(name)}
		switch {
		case roster != nil:
			p := roster.Match(name)
			if p == nil {
				needs = append(needs, gradebook.QuoteName(name)+": not on the roster (a roster row's id or email names its folder)")
				continue
			}
			id[name], person[name] = p.ID, p
			keys = append(keys, "\x00roster "+gradebook.FoldName(p.ID))
		case gradebook.ValidID(name) && !gradebook.EmailID(name):
			id[name] = name
		default:
			id[name] = gradebook.DeriveID(name, nil)
			keys = append(keys, gradebook.FoldName(id[name]))
		}
		for _, k := range dedup(keys) {
			claims[k] = append(claims[k], name)
		}
	}
	clash := map[string][]string{}
	for _, ns := range claims {
		if len(ns) < 2 {
			continue
		}
		for _, n := range ns {
			clash[n] = append(clash[n], ns...)
		}
	}
	for _, name := range names {
		if _, ok := id[name]; !ok {
			continue
		}
		if others := clash[name]; len(others) > 0 {
			var qs []string
			for _, o := range dedup(others) {
				if o != name {
					qs = append(qs, gradebook.QuoteName(o))
				}
			}
			needs = append(needs, fmt.Sprintf("%s: one student with %s (after case folding and Unicode normalisation, or by the roster row or the id it is graded under): graded onto no one's row until the folders are told apart", gradebook.QuoteName(name), strings.Join(qs, ", ")))
			continue
		}
		e := classEntry{id: id[name], name: name, dir: filepath.Join(class, name), person: person[name]}
		e.refused = refuseEntry(e.dir)
		entries = append(entries, e)
	}
	return entries, ignored, needs, nil
}

// dedup returns ss without repeats, in order.
func dedup(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// refuseEntry says why the class folder's entry at p is not a student's
// folder that can be graded, or returns "".
func refuseEntry(p string) string {
	st, err := os.Lstat(p)
	if err != nil {
		return fmt.Sprintf("the entry cannot be read: %v", cause(err))
	}
	switch m := st.Mode(); {
	case m&fs.ModeSymlink != 0:
		return "the entry is a symbolic link, not a folder: hand in the folder itself"
	case m.IsRegular():
		return "the entry is a file, not a student's folder"
	case !m.IsDir():
		return "the entry is not a regular folder (a FIFO, a device or a socket)"
	}
	f, err := handin.OpenFolder(p)
	if err != nil {
		return fmt.Sprintf("the folder cannot be read: %v", cause(err))
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil && err != io.EOF {
		return fmt.Sprintf("the folder cannot be read: %v", cause(err))
	}
	return ""
}

// readRoster reads the roster at path, or returns nil for none.
func readRoster(path string) (*gradebook.Roster, error) {
	if path == "" {
		return nil, nil
	}
	return gradebook.ReadRosterFile(path)
}

// insideDir reports whether path is dir or lies inside it, links
// resolved where they exist.
func insideDir(dir, path string) bool {
	resolve := func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		// Resolve the longest part that exists.
		rest := ""
		for q := abs; ; q = filepath.Dir(q) {
			if r, err := filepath.EvalSymlinks(q); err == nil {
				return filepath.Join(r, rest)
			}
			if filepath.Dir(q) == q {
				return abs
			}
			rest = filepath.Join(filepath.Base(q), rest)
		}
	}
	d, p := resolve(dir), resolve(path)
	return p == d || strings.HasPrefix(p, d+string(filepath.Separator))
}

// shardEntries is the entries of the students in the part s (all of them
// when s is the zero Shard).
func shardEntries(entries []classEntry, s gradebook.Shard) []classEntry {
	var mine []classEntry
	for _, e := range entries {
		if s.Has(e.id) {
			mine = append(mine, e)
		}
	}
	return mine
}
