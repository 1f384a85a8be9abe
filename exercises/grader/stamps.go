package grader

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
)

// handedIn returns the digest (gradebook.Student.SetFiles) of the files a
// student's folder hands in for the exercises exs (each exercise's files,
// at DIR/exercises/ID/F or DIR/ID/F, and the exercises' notebook), and
// each file's size and modification time. Only regular files that are
// not links, in folders that are not links, are read, each at most its
// limit; a file that cannot be read is left out (the grader says why in
// its cell).
func handedIn(dir string, exs []grading.Exercise) (string, []gradebook.FileStamp) {
	type file struct {
		rel, path string
		limit     int64
	}
	var files []file
	seen := map[string]bool{}
	for _, e := range exs {
		for _, f := range e.Files {
			for _, rel := range []string{filepath.Join("exercises", e.ID, f), filepath.Join(e.ID, f)} {
				if !seen[rel] {
					seen[rel] = true
					files = append(files, file{filepath.ToSlash(rel), filepath.Join(dir, rel), handin.MaxSourceBytes})
				}
			}
		}
	}
	files = append(files, file{handin.NotebookName, filepath.Join(dir, handin.NotebookName), handin.MaxNotebookBytes})
	sort.Slice(files, func(a, b int) bool { return files[a].rel < files[b].rel })
	var stamps []gradebook.FileStamp
	for _, f := range files {
		st, err := os.Lstat(f.path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		b, err := handin.ReadBelow(dir, f.rel, f.limit)
		if err != nil {
			continue
		}
		sum := sha256.Sum256(b)
		stamps = append(stamps, gradebook.FileStamp{Path: f.rel, Size: int64(len(b)), Modified: st.ModTime().UTC().Format(time.RFC3339),
			SHA256: hex.EncodeToString(sum[:])})
	}
	var s gradebook.Student
	s.SetFiles(stamps)
	return s.SHA256, s.Files
}

// docExt are the extensions of files no Go build reads: notebooks,
// prose and pictures.
var docExt = map[string]bool{".ipynb": true, ".md": true, ".png": true, ".svg": true, ".pdf": true, ".html": true}

// treeDigest is a digest of the repository's files as the go command
// sees them: every file's path, size and modification time (the .git
// folder, notebooks, prose and pictures aside), the go command's version and the environment that
// changes a build. A class run keys its cached test binaries by it, so
// that an unchanged tree reuses them without running the go command, and
// any edit of the repository builds them again.
func treeDigest(root, goBin string) (string, error) {
	h := sha256.New()
	out, err := exec.Command(goBin, "env", "GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "GOEXPERIMENT", "GOAMD64", "GOARM64").Output()
	if err != nil {
		return "", fmt.Errorf("the go command's environment: %w", err)
	}
	h.Write(out)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable entry: left out, as the go command would fail on it alike
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() || docExt[filepath.Ext(p)] {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", rel, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("a digest of the repository: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
