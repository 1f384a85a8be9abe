package checks

import (
	"reflect"
	"runtime"
	"sort"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// What a submitted file may import and name (grading.CheckSource).

// baseImports may be imported by every exercise: the standard library's
// arithmetic, formatting and sorting, and grading (for
// ErrNotImplemented).
var baseImports = []string{
	"errors", "fmt", "math", "math/bits", "slices", "sort", "strconv", "strings", "sync",
	"stencillab.dev/exercises/grading",
}

// The lab's packages, which an exercise may import when its functions
// take or return their types.
const (
	labPkg = "stencillab.dev/lab"
	simPkg = "stencillab.dev/lab/sim"
)

// extraImports returns the further imports of an exercise: the lab where
// its functions use the lab's types (not in 01 and 02, where the lab's
// Grid1 and CentralDifference would do the work), gonum's matrices for
// the moment conditions of 02, and the simulator for 04 and the kernels.
func extraImports(id string) []string {
	switch id {
	case "01_sine":
		return nil
	case "02_derivative":
		return []string{"gonum.org/v1/gonum/mat"}
	case "03_five_point":
		return []string{labPkg}
	}
	return []string{labPkg, simPkg} // 04 and the kernels
}

// labWork is the lab's code that runs a step, sweeps a grid or computes
// what an exercise asks for, beside the step kernels (refKernels).
var labWork = []string{
	// the registry, from which a step's kernel is one field away
	"Steps", "Steps3", "LookupStep", "LookupStep3", "LookupKernel", "StepOfFigure", "BrokenKernels", "Register3",
	"RegisterBackend", "NewRunner",
	// running a kernel or a sweep
	"Execute", "Simulate", "Prepare", "CheckKernel", "Advance",
	"SevenPoint", "SevenPointThreads", "Sweep2", "Sweep3", "Derivative",
	// the answers of exercises 1, 2 and 4
	"Discretize", "CentralDifference", "Cost", "CostN", "CostGrid", "IntensityBasic", "IntensityN", "IntensityTiled",
	"MaxTile", "CheckTile",
}

// funcName returns the qualified name of a function value,
// "stencillab.dev/lab.BasicKernel".
func funcName(f any) string { return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name() }

// denyList returns the identifiers no submission may name: every kernel
// the lab registers (each step's, and the broken ones of the study notes),
// derived from the registry, and labWork.
func denyList() []string {
	seen := map[string]bool{}
	for _, s := range lab.Steps3() {
		if s.Kernel != nil {
			seen[funcName(s.Kernel)] = true
		}
	}
	for _, b := range lab.BrokenKernels() {
		seen[funcName(b.Kernel)] = true
	}
	for _, w := range labWork {
		seen["stencillab.dev/lab."+w] = true
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// withPolicy sets what a submitted file of e may import and name.
func withPolicy(e grading.Exercise) grading.Exercise {
	e.Imports = append(append([]string(nil), baseImports...), extraImports(e.ID)...)
	e.Deny = denyList()
	return e
}
