package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/handin"
)

// MaxRepositories bounds the repositories of a Classroom checkout.
const MaxRepositories = 100000

// FromClassroom collects a GitHub Classroom checkout into opt.Out: dir
// holds one repository per student, named ASSIGNMENT-LOGIN (as GitHub
// Classroom names them, and as `gh classroom clone student-repos` clones
// them), LOGIN the student's GitHub login, which the roster gives as the
// id or the login column. Each repository is a copy of the students'
// copy: its exercises/ID/FILE and notebooks/09_exercises.ipynb are taken.
// A repository whose last commit is after the deadline is late (the
// committer's date, which the student's machine sets; GitHub's push time
// is not in a checkout). Git runs only to read that date, with every
// configuration but the repository's own turned off.
func FromClassroom(dir string, roster *gradebook.Roster, opt Options) (*Manifest, error) {
	f, err := handin.OpenFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("collect: the checkout: %w", err)
	}
	names, err := f.Readdirnames(MaxRepositories + 1)
	f.Close()
	if err != nil && len(names) == 0 {
		return nil, fmt.Errorf("collect: the checkout: %w", err)
	}
	if len(names) > MaxRepositories {
		return nil, fmt.Errorf("collect: %w: more than %d repositories", ErrLimit, MaxRepositories)
	}
	sort.Strings(names)
	if err := prepareOut(opt.Out); err != nil {
		return nil, err
	}
	m := &Manifest{Version: ManifestVersion, Kind: KindClassroom, Source: dir, Deadline: opt.Deadline.UTC(), Collected: opt.now().UTC()}
	match := newMatcher(roster)
	type repo struct {
		name string
		ids  []string
	}
	var repos []repo
	claims := map[string][]string{}
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			continue
		}
		st, err := os.Lstat(filepath.Join(dir, n))
		if err != nil || !st.IsDir() || st.Mode()&fs.ModeSymlink != 0 {
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: n, Reason: "not a repository's folder (a file or a link)"})
			continue
		}
		ids := loginIDs(match, n)
		repos = append(repos, repo{n, ids})
		if len(ids) == 1 {
			claims[ids[0]] = append(claims[ids[0]], n)
		}
	}
	for _, r := range repos {
		switch {
		case len(r.ids) == 0:
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: r.name, Reason: "no roster row's id or login ends the repository's name (ASSIGNMENT-LOGIN)"})
			continue
		case len(r.ids) > 1:
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: r.name, Reason: "ambiguous: the name ends with several roster rows' logins", Candidates: r.ids})
			continue
		case len(claims[r.ids[0]]) > 1:
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: r.name, Reason: fmt.Sprintf("ambiguous: %d repositories (%s) map to the same roster row; none was taken", len(claims[r.ids[0]]), strings.Join(claims[r.ids[0]], ", ")), Candidates: r.ids})
			continue
		}
		id := r.ids[0]
		root := filepath.Join(dir, r.name)
		snap := newSnapshot()
		var problems []string
		h := &Hand{ID: id, From: r.name}
		var rels []string
		for _, e := range opt.Exercises {
			for _, f := range e.Files {
				rels = append(rels, "exercises/"+e.ID+"/"+f)
			}
		}
		rels = append(rels, "notebooks/"+handin.NotebookName)
		for _, rel := range rels {
			b, err := handin.ReadBelow(root, rel, limitOf(rel))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				problems = append(problems, rel+": "+err.Error())
				continue
			}
			st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				problems = append(problems, rel+": "+err.Error())
				continue
			}
			if err := snap.add(rel, b, st.ModTime()); err != nil {
				problems = append(problems, rel+": "+err.Error())
			}
		}
		if len(snap.files) == 0 {
			why := "the repository has no exercise's file and no exercises' notebook"
			if len(problems) > 0 {
				why += ": " + strings.Join(problems, "; ")
			}
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: r.name, Reason: why, Candidates: r.ids})
			continue
		}
		if !opt.Deadline.IsZero() {
			when, err := commitTime(root)
			switch {
			case err != nil:
				problems = append(problems, "the last commit's date could not be read ("+err.Error()+"): check it is not late")
			case when.After(opt.Deadline):
				h.Late = true
				problems = append([]string{fmt.Sprintf("late: last commit at %s, after the deadline; snapshotted into %s/%s and not graded", when.UTC().Format(time.RFC3339), LateDir, id)}, problems...)
			}
		}
		out := filepath.Join(opt.Out, id)
		if h.Late {
			out = filepath.Join(opt.Out, LateDir, id)
		}
		if err := snap.write(out, h); err != nil {
			return nil, err
		}
		m.Students = append(m.Students, h)
		if len(problems) > 0 {
			m.NeedsInstructor = append(m.NeedsInstructor, Issue{Entry: r.name, Reason: strings.Join(problems, "; "), Candidates: r.ids})
		}
	}
	if err := finish(m, roster, opt.Out); err != nil {
		return nil, err
	}
	return m, nil
}

// loginIDs returns the roster ids whose id or login ends the repository's
// name after a '-' (the assignment's prefix may itself hold '-', and so
// may a login).
func loginIDs(match *matcher, name string) []string {
	seen := map[string]bool{}
	var ids []string
	for i := 0; i < len(name); i++ {
		if name[i] != '-' {
			continue
		}
		for _, id := range match.login(name[i+1:]) {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// commitTime reads the committer's date of HEAD in the repository root,
// with git, bounded in time, the system's and the user's configuration
// off, no pager, no prompt, no replace objects.
func commitTime(root string) (time.Time, error) {
	gitDir := filepath.Join(root, ".git")
	st, err := os.Lstat(gitDir)
	if err != nil || !st.IsDir() {
		return time.Time{}, errors.New("no .git folder (a link or a file is refused)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "--git-dir="+gitDir, "cat-file", "commit", "HEAD")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"}
	var out bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &out, left: 1 << 20}
	if err := cmd.Run(); err != nil {
		return time.Time{}, fmt.Errorf("git cat-file: %w", err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if line == "" {
			break
		}
		if !strings.HasPrefix(line, "committer ") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			break
		}
		sec, err := strconv.ParseInt(f[len(f)-2], 10, 64)
		if err != nil {
			break
		}
		return time.Unix(sec, 0), nil
	}
	return time.Time{}, errors.New("HEAD's commit has no committer line")
}

// limitedBuffer keeps at most left bytes of what is written to it.
type limitedBuffer struct {
	buf  *bytes.Buffer
	left int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if n > l.left {
		p = p[:l.left]
	}
	l.buf.Write(p)
	l.left -= len(p)
	return n, nil
}
