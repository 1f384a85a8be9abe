package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"stencillab.dev/lab/benchfile"
)

// MaxDataFile is the most bytes nbrun reads from one data file (a bench,
// a comparison, a record of peers): the committed ones are under 100 kB,
// and a notebook must not hang, nor fill its memory, on an endless file
// (a device, a pipe, a file that grows as it is read).
const MaxDataFile = 16 << 20

// readData reads the file at path, at most MaxDataFile bytes: a longer
// one is an error naming the limit. Its errors leave the path out (an
// fs.PathError gives its cause), so that the caller names the file as the
// student knows it, relative to the repository.
func readData(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxDataFile+1))
	if err != nil {
		return nil, unwrapPath(err)
	}
	if len(data) > MaxDataFile {
		return nil, fmt.Errorf("longer than the limit of %d bytes (%d MiB) for a data file", MaxDataFile, MaxDataFile>>20)
	}
	return data, nil
}

// unwrapPath returns the cause of an fs.PathError, else err.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// loadBench reads a bench file with benchfile.Read, at most MaxDataFile
// bytes of it.
func loadBench(path string) (*benchfile.File, error) {
	data, err := readData(path)
	if err != nil {
		return nil, fmt.Errorf("benchfile: %s: %w", filepath.Base(path), err)
	}
	return benchfile.Read(bytes.NewReader(data))
}
