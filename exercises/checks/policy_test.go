package checks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

func TestTheDenyListHoldsEveryReferenceKernel(t *testing.T) {
	deny := denyList()
	for _, k := range []string{"BasicKernel", "TiledKernel", "CoarsenedKernel", "RegisterTiledKernel",
		"BrokenCoarsenedSwappedC3C4", "SevenPoint", "Execute", "Steps3", "Discretize", "Cost", "MaxTile"} {
		assert.Contains(t, deny, "stencillab.dev/lab."+k)
	}
}

// TestEverySolutionPassesTheStaticCheck reads each exercise's own file,
// the solution in the instructor's tree and the stub in a release.
func TestEverySolutionPassesTheStaticCheck(t *testing.T) {
	for _, e := range All() {
		require.NotEmpty(t, e.Imports, e.ID)
		require.NotEmpty(t, e.Deny, e.ID)
		for _, f := range e.Files {
			src, err := os.ReadFile(filepath.Join("..", e.ID, f))
			require.NoError(t, err)
			assert.Empty(t, grading.CheckSource(e, f, src), "%s/%s", e.ID, f)
		}
	}
}

func TestTheStaticCheckNamesFileLineAndRule(t *testing.T) {
	e := withPolicy(grading.Exercise{ID: "05_basic"})
	src := `package basic

import (
	"os"
	"stencillab.dev/exercises/grading"
	l "stencillab.dev/lab"
	"stencillab.dev/lab/sim"
	_ "embed"
	. "math"
)

//go:linkname nanotime runtime.nanotime
func nanotime() int64

var start = os.Getpid()

var ok = grading.ErrNotImplemented

func init() { grading.Float32 = grading.Tol{Abs: 1e30} }

func Basic(a l.StencilArgs) (sim.Kernel, error) {
	grading.Float64.Rel++
	p := &grading.Float32
	_ = p
	return l.BasicKernel(a)
}
`
	var got []string
	for _, v := range grading.CheckSource(e, "basic.go", []byte(src)) {
		got = append(got, v.String())
	}
	assert.Equal(t, []string{
		`basic.go:4: import "os" is forbidden: no unsafe, reflect, os, syscall, runtime, net, plugin or cgo in an exercise`,
		`basic.go:8: import "embed" is not allowed in 05_basic (allowed: errors, fmt, math, math/bits, slices, sort, strconv, strings, sync, stencillab.dev/exercises/grading, stencillab.dev/lab, stencillab.dev/lab/sim)`,
		`basic.go:9: import "math" with a dot is not allowed: name the package`,
		`basic.go:12: the directive //go:linkname is forbidden in an exercise`,
		`basic.go:15: package-level variable start is initialised by a function call: code must not run before the checks call it`,
		`basic.go:19: an init function is not allowed: code must not run before the checks call it`,
		`basic.go:19: assigns to grading.Float32, a variable of another package`,
		`basic.go:22: changes grading.Float64, a variable of another package`,
		`basic.go:23: takes the address of grading.Float32, a variable of another package`,
		`basic.go:25: l.BasicKernel does the exercise's work: write it yourself`,
	}, got)
}

func TestTheLabIsNotAllowedWhereItWouldDoTheWork(t *testing.T) {
	for _, e := range All() {
		switch e.ID {
		case "01_sine", "02_derivative":
			assert.NotContains(t, e.Imports, labPkg, e.ID)
			v := grading.CheckSource(e, e.Files[0], []byte("package x\n\nimport \"stencillab.dev/lab\"\n\nvar _ = lab.NewGrid1[float64]\n"))
			require.Len(t, v, 1, e.ID)
			assert.Contains(t, v[0].String(), `:3: import "stencillab.dev/lab" is not allowed in `+e.ID)
		default:
			assert.Contains(t, e.Imports, labPkg, e.ID)
		}
	}
}
