// Package handin reads what a student hands in, for every path of the
// grader (the Go exercises, the CUDA exercises, class runs): the student
// files of a submission folder and the exercises' notebook.
//
// Everything handed in is treated as hostile. A file is read only when it
// is a regular file that is not a symbolic link, reached through folders
// none of which is a link, opened without following a link and without
// blocking (a FIFO or a device is refused before it is read), and read
// through a bounded reader, so that a file that grows while it is read
// still cannot exceed its limit. Every refusal is an error that wraps one
// of this package's sentinels and names the limit broken.
package handin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxSourceBytes bounds a submitted source file (a .go or .cu file).
const MaxSourceBytes = 1 << 20

var (
	// ErrLink marks a handed-in file that is a symbolic link, or that lies
	// in a folder that is one.
	ErrLink = errors.New("is a symbolic link: submit the file itself")
	// ErrMissing marks a student file the submission does not have.
	ErrMissing = errors.New("missing")
	// ErrNotRegular marks a handed-in path that is not a regular file (a
	// folder, a FIFO, a device, a socket).
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge marks a handed-in file over its size limit.
	ErrTooLarge = errors.New("too large")
	// ErrMalformed marks a handed-in file that cannot be read as what it
	// should be (a notebook that is not JSON, or nested too deep).
	ErrMalformed = errors.New("malformed")
)

// refusal is an error of a hand-in: its message, and the sentinel it
// wraps (not repeated in the message).
type refusal struct {
	msg  string
	kind error
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.kind }

// refuse returns a refusal of kind with the message format, args.
func refuse(kind error, format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...), kind: kind}
}

// Refused reports whether err is the hand-in's fault (a link, a file that
// is not regular, too large or malformed, or missing), as opposed to an
// error of the machine that read it.
func Refused(err error) bool {
	for _, e := range []error{ErrLink, ErrMissing, ErrNotRegular, ErrTooLarge, ErrMalformed} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// ReadRegular reads the file at path, at most limit bytes. It refuses a
// symbolic link (ErrLink, unwrapped, so that a caller prefixes the file's
// name), anything but a regular file (ErrNotRegular) and a file over limit
// (ErrTooLarge), without reading them.
func ReadRegular(path string, limit int64) ([]byte, error) {
	name := filepath.Base(path)
	st, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("read the submitted file: %w", err)
	}
	if err := checkMode(name, st, limit); err != nil {
		return nil, err
	}
	f, err := openNoFollow(path)
	if err != nil {
		if isLinkErr(err) {
			return nil, ErrLink
		}
		return nil, fmt.Errorf("read the submitted file %s: %w", name, err)
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read the submitted file %s: %w", name, err)
	}
	// The file opened must be the one looked at: a path swapped for a
	// FIFO or a link in between is refused.
	if !os.SameFile(st, fst) {
		return nil, refuse(ErrNotRegular, "%s changed while it was read", name)
	}
	if err := checkMode(name, fst, limit); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read the submitted file %s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, refuse(ErrTooLarge, "%s has more than the %d bytes a submitted file may have", name, limit)
	}
	return b, nil
}

// checkMode refuses what is not a regular file of at most limit bytes.
func checkMode(name string, st fs.FileInfo, limit int64) error {
	switch m := st.Mode(); {
	case m&fs.ModeSymlink != 0:
		return ErrLink
	case !m.IsRegular():
		return refuse(ErrNotRegular, "%s is %s", name, kind(m))
	case st.Size() > limit:
		return refuse(ErrTooLarge, "%s has %d bytes, more than the %d a submitted file may have", name, st.Size(), limit)
	}
	return nil
}

// kind names what a path that is not a regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder, not a file"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO, not a regular file"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device, not a regular file"
	case m&fs.ModeSocket != 0:
		return "a socket, not a regular file"
	}
	return "not a regular file"
}

// SubmissionFile reads the student file file of exercise id from the
// submission folder dir: dir/exercises/id/file, or dir/id/file when dir
// is an exercises folder. No part of the path below dir may be a link
// (ErrLink); a submission without the file gives ErrMissing. id and file
// must be plain names.
func SubmissionFile(dir, id, file string) ([]byte, error) {
	for _, n := range []string{id, file} {
		if !plainName(n) {
			return nil, fmt.Errorf("handin: %q is not a plain file name", n)
		}
	}
	for _, parts := range [][]string{{"exercises", id, file}, {id, file}} {
		p := dir
		found := true
		for k, part := range parts {
			p = filepath.Join(p, part)
			st, err := os.Lstat(p)
			if err != nil {
				found = false
				break
			}
			if st.Mode()&fs.ModeSymlink != 0 {
				return nil, ErrLink
			}
			if k < len(parts)-1 && !st.IsDir() {
				found = false
				break
			}
		}
		if found {
			return ReadRegular(p, MaxSourceBytes)
		}
	}
	return nil, refuse(ErrMissing, "the submission has no exercises/%s/%s", id, file)
}

// ReadBelow reads the file at rel, a slash-separated path below dir, as
// ReadRegular does, and refuses it (ErrLink) when a folder of rel is a
// symbolic link: what it reads lies in dir.
func ReadBelow(dir, rel string, limit int64) ([]byte, error) {
	parts := strings.Split(rel, "/")
	p := dir
	for _, part := range parts[:len(parts)-1] {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if err != nil {
			return nil, fmt.Errorf("read the submitted file: %w", err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return nil, ErrLink
		}
	}
	return ReadRegular(filepath.Join(dir, filepath.FromSlash(rel)), limit)
}

// plainName reports whether n is a file name without a folder.
func plainName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, `/\`+"\x00")
}
