package collect

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/handin"
)

// FeedbackDir is the folder of a student's home on the hub that receives
// their feedback.
const FeedbackDir = "feedback"

// feedbackExts are the feedback files `grade -class` writes for a
// student (feedback/ID.md and feedback/ID.html), in the order they are
// handed back.
var feedbackExts = []string{".html", ".md"}

// maxFeedbackBytes bounds a feedback file read back.
const maxFeedbackBytes = 16 << 20

// feedbackOf reads the feedback files of a student from the gradebook's
// folder, by extension; none when the student has none.
func feedbackOf(gradebookDir, id string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, ext := range feedbackExts {
		b, err := handin.ReadRegular(filepath.Join(gradebookDir, "feedback", id+ext), maxFeedbackBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("collect: the feedback of %s: %w", gradebook.QuoteName(id), err)
		}
		out[ext] = b
	}
	return out, nil
}

// ReturnToHomes writes each roster student's feedback (the gradebook's
// feedback/ID.html and ID.md) into their home on the hub, as
// ~/feedback/feedback.html and feedback.md, owned by the home's owner, and
// returns the ids it wrote to. The home is the student's: every path in
// it is resolved inside it (os.Root), a file is written under a fresh name
// and renamed over the old one, so that a link the student planted cannot
// send the write elsewhere.
func ReturnToHomes(gradebookDir, homes string, roster *gradebook.Roster) ([]string, error) {
	users, err := UserNames(roster)
	if err != nil {
		return nil, err
	}
	var done []string
	for _, p := range roster.People {
		fb, err := feedbackOf(gradebookDir, p.ID)
		if err != nil {
			return done, err
		}
		if len(fb) == 0 {
			continue
		}
		home := filepath.Join(homes, users[p.ID])
		st, err := os.Lstat(home)
		if err != nil || !st.IsDir() {
			continue // no account on the hub
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return done, errors.New("collect: the homes' owners cannot be read on this system")
		}
		if err := writeHome(home, int(sys.Uid), int(sys.Gid), fb); err != nil {
			return done, fmt.Errorf("collect: the feedback of %s: %w", gradebook.QuoteName(p.ID), err)
		}
		done = append(done, p.ID)
	}
	return done, nil
}

func writeHome(home string, uid, gid int, fb map[string][]byte) error {
	root, err := os.OpenRoot(home)
	if err != nil {
		return err
	}
	defer root.Close()
	if st, err := root.Lstat(FeedbackDir); err == nil && !st.IsDir() {
		return fmt.Errorf("~/%s is not a folder", FeedbackDir)
	} else if err != nil {
		if err := root.Mkdir(FeedbackDir, 0o755); err != nil {
			return err
		}
		if err := root.Lchown(FeedbackDir, uid, gid); err != nil {
			return err
		}
	}
	for _, ext := range feedbackExts {
		b, ok := fb[ext]
		if !ok {
			continue
		}
		name := filepath.Join(FeedbackDir, "feedback"+ext)
		tmp := filepath.Join(FeedbackDir, ".feedback"+ext+".tmp")
		_ = root.Remove(tmp)
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = root.Lchown(tmp, uid, gid)
		}
		if err == nil {
			err = root.Rename(tmp, name)
		}
		if err != nil {
			_ = root.Remove(tmp)
			return err
		}
	}
	return nil
}

// FeedbackZip writes, as a zip to w, each collected student's feedback
// named for the LMS the collection came from: for Canvas, the
// submission's prefix then feedback.html ("Re-Upload Submissions" in
// the assignment's Submissions page attaches each file to the submission
// its name gives); for Moodle, the participant's prefix then
// feedback.html ("Upload multiple feedback files in a zip", which needs the
// "Feedback files" feedback type). It returns the number of files.
func FeedbackZip(gradebookDir string, m *Manifest, w io.Writer) (int, error) {
	if m.Kind != KindCanvas && m.Kind != KindMoodle {
		return 0, fmt.Errorf("collect: a %s collection has no LMS to upload feedback to (Canvas and Moodle collections have)", m.Kind)
	}
	zw := zip.NewWriter(w)
	n := 0
	for _, h := range m.Students {
		if h.Prefix == "" {
			continue
		}
		fb, err := feedbackOf(gradebookDir, h.ID)
		if err != nil {
			return n, err
		}
		for _, ext := range feedbackExts[:1] {
			b, ok := fb[ext]
			if !ok {
				continue
			}
			f, err := zw.Create(h.Prefix + "feedback" + ext)
			if err != nil {
				return n, fmt.Errorf("collect: the feedback zip: %w", err)
			}
			if _, err := f.Write(b); err != nil {
				return n, fmt.Errorf("collect: the feedback zip: %w", err)
			}
			n++
		}
	}
	if err := zw.Close(); err != nil {
		return n, fmt.Errorf("collect: the feedback zip: %w", err)
	}
	return n, nil
}
