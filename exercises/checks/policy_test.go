package checks

import (
	"context"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
	"stencillab.dev/exercises/release"
)

// static is the static check of this repository, shared by the tests.
var static = grading.NewStatic(filepath.Join("..", ".."))

func TestEveryExerciseHasAnAllowList(t *testing.T) {
	for _, e := range All() {
		own, ok := Allowed(e.ID)
		require.True(t, ok, "%s has no entry in policy", e.ID)
		assert.Equal(t, own, e.Allow, e.ID)
		assert.Subset(t, e.Allow, base, e.ID)
	}
	_, err := static.Check(context.Background(), grading.Exercise{ID: "05_basic"}, map[string][]byte{"basic.go": []byte("package basic\n")})
	assert.ErrorContains(t, err, "exercise 05_basic declares no allow-list", "an exercise without a list is never checked as if it allowed nothing")
}

// TestEveryAllowEntryNamesSomethingOfTheModule resolves each entry of
// every list against the packages' export data: a renamed or removed
// symbol fails here, not silently in a student's file.
func TestEveryAllowEntryNamesSomethingOfTheModule(t *testing.T) {
	ctx := context.Background()
	seen := map[string]bool{}
	for _, e := range All() {
		id := e.ID
		allow, _ := Allowed(id)
		for _, entry := range allow {
			if seen[entry] {
				continue
			}
			seen[entry] = true
			_, err := static.Resolve(ctx, entry)
			assert.NoError(t, err, id)
		}
	}
	for _, bad := range []string{labPkg + ".NoSuchFunction", simPkg + ".Thread.NoSuchMethod", simPkg + ".ErrLimit.Field", "stencillab.dev/no/such/package"} {
		_, err := static.Resolve(ctx, bad)
		assert.Error(t, err, bad)
	}
}

// TestEverySolutionPassesTheStaticCheck reads each exercise's own file,
// the solution in the instructor's tree and the stub in a release.
func TestEverySolutionPassesTheStaticCheck(t *testing.T) {
	for _, e := range All() {
		files := map[string][]byte{}
		for _, f := range e.Files {
			src, err := os.ReadFile(filepath.Join("..", e.ID, f))
			require.NoError(t, err)
			files[f] = src
		}
		vs, err := static.Check(context.Background(), e, files)
		require.NoError(t, err, e.ID)
		assert.Empty(t, vs, e.ID)
	}
}

// TestEveryReleasedStubPassesTheStaticCheck strips each solution as the
// release does: a student's untouched file is graded (0, not
// implemented), never refused.
func TestEveryReleasedStubPassesTheStaticCheck(t *testing.T) {
	for _, e := range All() {
		files := map[string][]byte{}
		for _, f := range e.Files {
			src, err := os.ReadFile(filepath.Join("..", e.ID, f))
			require.NoError(t, err)
			if release.GoHasSolution(src) {
				src, err = release.StripGo(f, src)
				require.NoError(t, err, e.ID)
			}
			files[f] = src
		}
		vs, err := static.Check(context.Background(), e, files)
		require.NoError(t, err, e.ID)
		assert.Empty(t, vs, e.ID)
	}
}

// TestTheNotebooksSolutionsPassTheStaticCheck extracts each exercise's
// cell of the notebook as a handed-in notebook is: the same code in a
// notebook is checked as in a file.
func TestTheNotebooksSolutionsPassTheStaticCheck(t *testing.T) {
	root := filepath.Join("..", "..")
	cells, err := handin.ReadNotebook(filepath.Join(root, "notebooks", handin.NotebookName))
	require.NoError(t, err, "the exercises' notebook, which the release keeps")
	dir := t.TempDir()
	exs := All()
	require.NoError(t, handin.ExtractNotebook(dir, root, cells, exs))
	for _, e := range exs {
		b, err := os.ReadFile(filepath.Join(dir, e.ID, e.Files[0]))
		require.NoError(t, err, "%s has a cell", e.ID)
		vs, err := static.Check(context.Background(), e, map[string][]byte{e.Files[0]: b})
		require.NoError(t, err, e.ID)
		assert.Empty(t, vs, e.ID)
	}
}

// TestTheListsGiveNoExerciseItsAnswer holds the lists to what each
// exercise may lean on: 01 the standard library, 02 gonum's matrices too,
// 03 and 04 the lab's grid and cost types with no function that computes,
// the kernels the thirteen-point types and the simulator, not the lab.
func TestTheListsGiveNoExerciseItsAnswer(t *testing.T) {
	labFuncs := map[string][]string{}
	for _, e := range All() {
		id := e.ID
		allow, _ := Allowed(id)
		for _, entry := range allow {
			path, sym := grading.SplitAllow(entry)
			if entry == gradingPkg+".ErrNotImplemented" {
				continue
			}
			if path == labPkg && !strings.Contains(sym, ".") && sym != "" && !isType(t, sym) {
				labFuncs[id] = append(labFuncs[id], sym)
			}
			switch id {
			case "01_sine":
				assert.NotContains(t, path, ".", "%s: %s is not the standard library", id, entry)
			case "02_derivative":
				assert.True(t, !strings.Contains(path, ".") || path == matPkg, "%s: %s", id, entry)
			case "05_basic", "06_tiled", "07_coarsened", "08_register_tiled", "09_find_the_bug", "10_warps":
				assert.NotEqual(t, labPkg, path, "%s: %s", id, entry)
			}
			if path == simPkg {
				for _, run := range []string{"Simulator", "Launch", "Stats", "Memory"} {
					assert.NotEqual(t, run, strings.Split(sym, ".")[0], "%s: %s runs kernels or reports a run", id, entry)
				}
			}
		}
	}
	assert.Equal(t, map[string][]string{"03_five_point": {"NewGrid2"}}, labFuncs, "the only lab function allowed makes an empty grid")
}

// TestStarHoldsNothingThatComputes guards the package allowed whole to
// the kernel exercises: it may hold types, constants and variables, not a
// function or a method, which could compute a kernel's answer for it.
func TestStarHoldsNothingThatComputes(t *testing.T) {
	obj, err := static.Resolve(context.Background(), starPkg)
	require.NoError(t, err)
	scope := obj.(*types.PkgName).Imported().Scope()
	for _, name := range scope.Names() {
		o := scope.Lookup(name)
		if !o.Exported() {
			continue
		}
		_, isFunc := o.(*types.Func)
		assert.False(t, isFunc, "star.%s is a function: allow it by name, or keep star free of code", name)
		if tn, ok := o.(*types.TypeName); ok {
			if n, ok := tn.Type().(*types.Named); ok {
				for i := 0; i < n.NumMethods(); i++ {
					assert.False(t, n.Method(i).Exported(), "star.%s.%s is a method: allow it by name, or keep star free of code", name, n.Method(i).Name())
				}
			}
		}
	}
}

// isType reports whether the lab's name is a type, from the export data.
func isType(t *testing.T, name string) bool {
	t.Helper()
	obj, err := static.Resolve(context.Background(), labPkg+"."+name)
	require.NoError(t, err)
	_, ok := obj.(*types.TypeName)
	return ok
}
