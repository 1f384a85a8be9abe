package collect

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"stencillab.dev/exercises/handin"
)

// readInRoot reads rel, a slash-separated path below the folder root is
// open on, at most limit bytes, with handin's policy (no link on the
// way, a regular file, bounded) and, whatever a student swaps in while it
// reads, never a file outside root: every step is resolved by os.Root. It
// returns the file's modification time.
func readInRoot(root *os.Root, rel string, limit int64) ([]byte, time.Time, error) {
	parts := strings.Split(rel, "/")
	for i := range parts[:len(parts)-1] {
		st, err := root.Lstat(strings.Join(parts[:i+1], "/"))
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("read the submitted file: %w", err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return nil, time.Time{}, handin.ErrLink
		}
		if !st.IsDir() {
			return nil, time.Time{}, fmt.Errorf("read the submitted file: %s is not a folder: %w", strings.Join(parts[:i+1], "/"), fs.ErrNotExist)
		}
	}
	st, err := root.Lstat(rel)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read the submitted file: %w", err)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, time.Time{}, handin.ErrLink
	}
	if !st.Mode().IsRegular() {
		return nil, time.Time{}, fmt.Errorf("%w: %s is not a regular file", ErrUnsafe, parts[len(parts)-1])
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read the submitted file: %w", err)
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read the submitted file: %w", err)
	}
	if !os.SameFile(st, fst) || !fst.Mode().IsRegular() {
		return nil, time.Time{}, fmt.Errorf("%w: %s changed while it was read", ErrUnsafe, parts[len(parts)-1])
	}
	if fst.Size() > limit {
		return nil, time.Time{}, fmt.Errorf("%w: %s has %d bytes, above the limit of %d", ErrLimit, parts[len(parts)-1], fst.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read the submitted file: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, time.Time{}, fmt.Errorf("%w: %s grew past the limit of %d bytes while it was read", ErrLimit, parts[len(parts)-1], limit)
	}
	return b, fst.ModTime(), nil
}
