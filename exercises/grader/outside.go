package grader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Course data (hand-ins, the roster, the gradebook and its feedback, the
// overrides, the exports) lives outside any repository: `cmd/release`
// copies only tracked files and refuses course data, but a class graded
// in a checkout is still one `git add` away from a commit that carries it.
// So every path of course data that grade reads or writes is refused
// inside a git checkout (this lab's or any other), unless -allow-in-repo
// is given.

// allowInRepoFlag names the flag that lets course data lie in a checkout.
const allowInRepoFlag = "allow-in-repo"

// allowInRepoUsage is that flag's help.
const allowInRepoUsage = "let course data (the class, -out, -roster, -overrides, the exports) lie inside a git checkout; by default it must be outside any repository, e.g. under ~/course"

// checkoutHolding returns the root of the git checkout that holds path:
// the nearest folder, from path up, that has a .git (a folder, or the
// file of a worktree or submodule), path made absolute with its links
// resolved as far as it exists; "" when none does.
func checkoutHolding(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	abs = resolveExisting(abs)
	for dir := abs; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// resolveExisting resolves the links of the longest part of abs that
// exists, and keeps the rest as it is (a folder -out makes later).
func resolveExisting(abs string) string {
	var rest []string
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = append(rest, filepath.Base(p))
		p = parent
	}
}

// coursePath is one path of course data a command reads or writes: what
// names it (a flag such as "-out", or "the class folder") and the path.
type coursePath struct{ what, path string }

// refuseInRepo returns an error naming the first path (of those not "")
// that lies inside a git checkout, and the checkout; nil when allow is
// set or none does.
func refuseInRepo(allow bool, paths ...coursePath) error {
	if allow {
		return nil
	}
	for _, p := range paths {
		if p.path == "" || p.path == "-" {
			continue
		}
		if root := checkoutHolding(p.path); root != "" {
			return fmt.Errorf("%s %s lies inside the git checkout %s: course data (hand-ins, rosters, grades, overrides, feedback) belongs outside any repository, "+
				"e.g. under ~/course/2026/, where no `git add` can take it into a commit; -%s keeps it there anyway", p.what, p.path, root, allowInRepoFlag)
		}
	}
	return nil
}

// coursePaths names each path of a list of positional arguments.
func coursePaths(what string, paths []string) []coursePath {
	var out []coursePath
	for _, p := range paths {
		out = append(out, coursePath{what, strings.TrimSpace(p)})
	}
	return out
}
