package checks

import "slices"

// What a submitted file may use (grading.Static): base, and beside it an
// allow-list per exercise, in its declaration (Decl.Allow), of whole
// packages (the standard library's arithmetic and formatting, gonum's
// matrices, the thirteen-point kernels' types) and of
// single names, fields and methods of the lab and its simulator. Whatever
// it does not hold is refused, by whatever route the file reaches it: the
// lab's kernels, sweeps, registry and cost model are in no list, so that
// no exercise's work can be handed to the lab's own code.

// Import paths of the module's packages, as allow-list entries name them.
const (
	labPkg     = "stencillab.dev/lab"
	simPkg     = "stencillab.dev/lab/sim"
	starPkg    = "stencillab.dev/exercises/star"
	gradingPkg = "stencillab.dev/exercises/grading"
	matPkg     = "gonum.org/v1/gonum/mat"
)

// base may be used by every exercise: the standard library's arithmetic,
// formatting, sorting and sync, and grading's ErrNotImplemented, which
// the stubs return. (A kernel exercise may not start goroutines: see
// grading.Static.)
var base = []string{
	"errors", "fmt", "math", "math/bits", "slices", "sort", "strconv", "strings", "sync",
	gradingPkg + ".ErrNotImplemented",
}

// simKernel is what a kernel on the simulator needs: its launch
// (sim.Kernel, sim.Dim3), the thread's coordinates, memory, barrier and
// flop count, shared arrays, and the global arrays' type (not their Data,
// which would bypass the counted loads and stores).
var simKernel = sym(simPkg,
	"Kernel", "Kernel.Name", "Kernel.Grid", "Kernel.Block", "Kernel.Body",
	"Dim3", "Dim3.X", "Dim3.Y", "Dim3.Z", "Dim3.Size",
	"Thread", "Thread.BlockIdx", "Thread.ThreadIdx", "Thread.BlockDim", "Thread.GridDim",
	"Thread.Load", "Thread.Store", "Thread.Sync", "Thread.Flops",
	"Thread.Shared1", "Thread.Shared2", "Thread.Shared3",
	"Shared1", "Shared1.Load", "Shared1.Store", "Shared2", "Shared2.Load", "Shared2.Store",
	"Shared3", "Shared3.Load", "Shared3.Store", "Global")

// kernel is the allow-list of the thirteen-point kernel exercises: the
// package star whole (arguments, kernel type, radius, flops, default
// tiles) and simKernel; not the lab, whose kernels are seven-point answers
// one edit away.
var kernel = slices.Concat([]string{starPkg}, simKernel)

// sym returns the entries "pkg.name" for names.
func sym(pkg string, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = pkg + "." + n
	}
	return out
}

// Allowed returns the allow-list of the exercise id, base and what its
// declaration allows, and whether id is declared. An exercise not
// declared has no list, and the static check refuses to check it
// (grading.Static.Check returns an error): never a file let through.
func Allowed(id string) ([]string, bool) {
	d, ok := declarations[id]
	if !ok {
		return nil, false
	}
	return slices.Concat(base, d.allow()), true
}
