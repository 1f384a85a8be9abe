package release

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"stencillab.dev/internal/nbformat"
)

// StripNotebook returns the student version of a Jupyter notebook: the
// solution blocks of its code cells replaced by their stubs, and every
// output and execution count cleared. Other fields are kept as they are.
func StripNotebook(name string, src []byte) ([]byte, error) {
	var nb map[string]json.RawMessage
	if err := json.Unmarshal(src, &nb); err != nil {
		return nil, fmt.Errorf("release: %s: not a notebook: %w", name, err)
	}
	var cells []map[string]json.RawMessage
	if err := json.Unmarshal(nb["cells"], &cells); err != nil {
		return nil, fmt.Errorf("release: %s: cells: %w", name, err)
	}
	for i, cell := range cells {
		var kind string
		if err := json.Unmarshal(cell["cell_type"], &kind); err != nil {
			return nil, fmt.Errorf("release: %s: cell %d: cell_type: %w", name, i, err)
		}
		if kind != "code" {
			continue
		}
		text, err := nbformat.CellSource(cell["source"])
		if err != nil {
			return nil, fmt.Errorf("release: %s: cell %d: %w", name, i, err)
		}
		stripped, err := StripText(fmt.Sprintf("%s cell %d", name, i), []byte(text))
		if err != nil {
			return nil, err
		}
		if cell["source"], err = nbformat.Marshal(nbformat.SplitSource(string(stripped))); err != nil {
			return nil, fmt.Errorf("release: %s: cell %d: %w", name, i, err)
		}
		cell["outputs"] = json.RawMessage("[]")
		cell["execution_count"] = json.RawMessage("null")
	}
	var err error
	if nb["cells"], err = nbformat.Marshal(cells); err != nil {
		return nil, fmt.Errorf("release: %s: %w", name, err)
	}
	b, err := nbformat.Encode(nb)
	if err != nil {
		return nil, fmt.Errorf("release: %s: %w", name, err)
	}
	return b, nil
}

// NotebookHasSolution reports whether a code cell of the notebook src has
// a solution block. A notebook that does not parse has none.
func NotebookHasSolution(src []byte) bool {
	var nb struct {
		Cells []struct {
			CellType string          `json:"cell_type"`
			Source   json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if json.Unmarshal(src, &nb) != nil {
		return false
	}
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		if text, err := nbformat.CellSource(c.Source); err == nil && HasSolution([]byte(text)) {
			return true
		}
	}
	return false
}

// IsInstructorTree reports whether the repository at root is the
// instructor's: a Go file of exercises/checks is built with the tag
// "hidden", and the release leaves every such file out. Tests that need the
// solutions skip only where this is false, so that an instructor's tree
// that lost its solutions fails rather than skips.
func IsInstructorTree(root string) bool {
	files, _ := filepath.Glob(filepath.Join(root, "exercises", "checks", "*.go"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && IsHidden(b) {
			return true
		}
	}
	return false
}

// Summary says what Tree did.
type Summary struct {
	Copied   int      // files copied unchanged
	Stripped []string // files whose solutions were replaced by stubs
	Left     []string // instructor-only files left out
	Withheld []string // CUDA sources replaced by their placeholders (Placeholder)
}

// Tree writes the student version of the repository at root into out, which
// must not exist or be empty. The files are those git tracks (TrackedFiles),
// and only those: an untracked file, ignored or not, is never released, so
// that a roster, a gradebook or the hand-ins an instructor left in the
// checkout stay there. A tracked file that is course data by its content
// (CourseData) stops the release, naming it. A CUDA source whose opening
// comment withholds it (WithheldReason) is written as its Placeholder; a
// misplaced withholding marker stops the release, naming the file and
// line. out itself is never read.
func Tree(root, out string) (Summary, error) {
	var sum Summary
	root, err := filepath.Abs(root)
	if err != nil {
		return sum, fmt.Errorf("release: %w", err)
	}
	out, err = filepath.Abs(out)
	if err != nil {
		return sum, fmt.Errorf("release: %w", err)
	}
	if out == root {
		return sum, fmt.Errorf("release: the output folder is the repository itself; choose another")
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return sum, fmt.Errorf("release: the output folder %s is not empty", out)
	}
	files, err := TrackedFiles(root)
	if err != nil {
		return sum, err
	}
	for _, rel := range files {
		src := filepath.Join(root, rel)
		if src == out || strings.HasPrefix(src, out+string(filepath.Separator)) {
			continue
		}
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted since listing, or a link: not part of a release
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return sum, fmt.Errorf("release: %w", err)
		}
		slash := filepath.ToSlash(rel)
		if err := refuseCourseData(slash, b); err != nil {
			return sum, err
		}
		if strings.HasSuffix(rel, ".ipynb") && NotebookHasAnswers(b) {
			if b, err = StripAnswers(slash, b); err != nil {
				return sum, err
			}
		}
		why := ""
		if IsCUDA(rel) {
			if why, err = WithheldReason(slash, b); err != nil {
				return sum, err
			}
		}
		switch {
		case why != "":
			// A lab kernel that answers an exercise: its signatures stay,
			// its body never leaves the instructor's copy.
			if b, err = Placeholder(slash, b); err != nil {
				return sum, err
			}
			sum.Withheld = append(sum.Withheld, slash)
		case strings.HasSuffix(rel, ".go") && IsHidden(b):
			sum.Left = append(sum.Left, slash)
			continue
		case strings.HasSuffix(rel, ".go") && GoHasSolution(b):
			if b, err = StripGo(slash, b); err != nil {
				return sum, err
			}
			sum.Stripped = append(sum.Stripped, slash)
		case strings.HasSuffix(rel, ".cu") && HasSolution(b):
			// A CUDA exercise: its lines are stripped as text (the markers
			// are C++ comments too).
			if b, err = StripText(slash, b); err != nil {
				return sum, err
			}
			sum.Stripped = append(sum.Stripped, slash)
		case strings.HasSuffix(rel, ".ipynb") && NotebookHasSolution(b):
			if b, err = StripNotebook(slash, b); err != nil {
				return sum, err
			}
			sum.Stripped = append(sum.Stripped, slash)
		default:
			sum.Copied++
		}
		dst := filepath.Join(out, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return sum, fmt.Errorf("release: %w", err)
		}
		if err := os.WriteFile(dst, b, st.Mode().Perm()); err != nil {
			return sum, fmt.Errorf("release: %w", err)
		}
	}
	return sum, nil
}

// TrackedFiles returns the files git tracks in the repository at root (its
// index: `git ls-files --cached`), relative to root, sorted. A folder that
// is not a git repository, or no git, is an error: the release copies what
// the repository tracks and nothing else.
func TrackedFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached")
	cmd.Dir = root
	cmd.Env = GitEnv(os.Environ())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("release: %s: list the files git tracks (the release copies those alone; make the folder a git repository and add its files): %w: %s",
			root, err, strings.TrimSpace(stderr.String()))
	}
	return splitPaths(b), nil
}

// splitPaths returns the paths of git's NUL-separated list b, once each,
// sorted, with the system's separators.
func splitPaths(b []byte) []string {
	var files []string
	seen := map[string]bool{}
	for _, f := range strings.Split(string(b), "\x00") {
		if f != "" && !seen[f] {
			seen[f] = true
			files = append(files, filepath.FromSlash(f))
		}
	}
	sort.Strings(files)
	return files
}

// GitEnv returns env without the variables that point git at another
// repository than the one of its working folder.
func GitEnv(env []string) []string {
	var keep []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_NAMESPACE":
			continue
		}
		keep = append(keep, kv)
	}
	return keep
}

// listFiles returns the files of the repository, relative to root: those
// git tracks or would track, or every file under root when git is not
// available. The solution scan collects its secrets from these, a wider
// set than the release copies.
func listFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if b, err := cmd.Output(); err == nil {
		return splitPaths(b), nil
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "build") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("release: list the repository's files: %w", err)
	}
	return files, nil
}
