package grader

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"stencillab.dev/exercises/grading"
)

// statics holds one static check per repository, which keeps the export
// data it has listed for every submission graded by this process.
var statics sync.Map // root → *grading.Static

// staticCheck type-checks the student files of e (a file name to its
// contents) against the repository in root and returns the status and the
// message the exercise scores 0 with when they do not compile
// (build_failed, before any build) or break a rule (rejected); nil when
// they may be built. A check that cannot run is the toolchain's failure, never
// the student's.
func staticCheck(root string, e grading.Exercise, files map[string][]byte) (grading.Status, error) {
	v, _ := statics.LoadOrStore(root, grading.NewStatic(root))
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	vs, err := v.(*grading.Static).Check(ctx, e, files)
	if err != nil {
		return grading.NotAvailable, fmt.Errorf("the static check could not run (this is not a mistake in the code): %w", err)
	}
	if len(vs) == 0 {
		return "", nil
	}
	lines := make([]string, len(vs))
	compile := true
	for i, v := range vs {
		lines[i] = v.String()
		compile = compile && v.Compile
	}
	if compile {
		// The parser's or the type checker's errors, named as the
		// compiler names the file: the file does not compile.
		for i := range lines {
			lines[i] = "exercises/" + e.ID + "/" + lines[i]
		}
		return grading.BuildFailed, fmt.Errorf("does not compile:\n%s", strings.Join(lines, "\n"))
	}
	return grading.Rejected, fmt.Errorf("the static check refused the submission:\n%s", strings.Join(lines, "\n"))
}
