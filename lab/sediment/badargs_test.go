package sediment

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
	"stencillab.dev/lab/badcall"
)

// The basin's methods with bad receivers and arguments, each call in a
// child process (this test binary run again with badCallEnv naming it), so
// that a panic fails the call's check rather than the test binary.

const badCallEnv = "SEDIMENT_BAD_CALL"

// badBasins are basins NewBasin never returns.
func badBasins() map[string]*Basin {
	good := func() *Basin {
		b, err := Random(6, 5, 3)
		if err != nil {
			panic(err)
		}
		return b
	}
	shortField := good()
	shortField.H = &lab.Grid2[float64]{NY: 7, NX: 8, Data: make([]float64, 3)}
	negative := &Basin{Nx: -1, Ny: -1}
	for _, g := range []**lab.Grid2[float64]{&negative.Alpha, &negative.Beta, &negative.H, &negative.S} {
		*g = &lab.Grid2[float64]{NY: 1, NX: 1, Data: make([]float64, 1)}
	}
	wraps := &Basin{Nx: 1<<32 - 2, Ny: 1<<32 - 2} // (Nx+2)(Ny+2) wraps to 0
	for _, g := range []**lab.Grid2[float64]{&wraps.Alpha, &wraps.Beta, &wraps.H, &wraps.S} {
		*g = &lab.Grid2[float64]{NY: 1 << 32, NX: 1 << 32}
	}
	boundChanged := good() // prepared, then a boundary of the wrong length
	boundChanged.Bound.North = []Inflow{{Rate: 1, Sand: 0.5}}
	zeroSpacing := good()
	zeroSpacing.P.Dx = 0
	nanField := good()
	nanField.S.Data[nanField.Index(2, 2)] = math.NaN()
	return map[string]*Basin{
		"nil":              nil,
		"zero":             {},
		"missing field":    {Nx: 4, Ny: 4, Alpha: good().Alpha},
		"short field":      shortField,
		"negative mesh":    negative,
		"wrapping mesh":    wraps,
		"boundary changed": boundChanged,
		"zero spacing":     zeroSpacing,
		"NaN sand":         nanField,
	}
}

func badCalls() []badcall.Call {
	var cs []badcall.Call
	add := func(name string, wantErr bool, call func() error) {
		cs = append(cs, badcall.Call{Name: name, Call: call, WantErr: wantErr})
	}
	ignore := func(f func()) func() error { return func() error { f(); return nil } }
	for name, b := range badBasins() {
		// Every bad basin but the prepared one whose boundary changed
		// fails the checks before a step; that one fails at the step.
		validates := name == "boundary changed"
		add("Basin.Validate/"+name, !validates, func() error { return b.Validate() })
		add("Basin.Prepare/"+name, !validates, func() error { return b.Prepare() })
		add("Basin.Limits/"+name, !validates, func() error { _, err := b.Limits(); return err })
		add("Basin.Step/"+name, true, func() error { return b.Step() })
		// The paper's printed scheme checks the parameters, not the
		// fields, once prepared: it is there to show where it goes wrong.
		add("Basin.StepPrinted/"+name, name != "NaN sand", func() error { return b.StepPrinted() })
		add("Basin.Run/"+name, true, func() error { return b.Run(2) })
		add("Basin.Fill/nil function, "+name, true, func() error { return b.Fill(nil) })
		add("Basin.FillGhostH/nil field, "+name, true, func() error { return b.FillGhostH(nil) })
		add("Basin.Interior/nil field, "+name, true, func() error { _, err := b.Interior(nil); return err })
		add("Basin.Index/"+name, false, ignore(func() { b.Index(-1, 1<<40) }))
		add("Basin.Pitch/"+name, false, ignore(func() { b.Pitch() }))
		add("Basin.Clone/"+name, false, ignore(func() { b.Clone() }))
		add("Basin.Mass/"+name, false, ignore(func() { b.Mass() }))
		add("Basin.SRange/"+name, false, ignore(func() { b.SRange() }))
		add("Basin.InflowRate/"+name, false, ignore(func() { b.InflowRate() }))
		add("Basin.FaceCoeff/"+name, false, ignore(func() { b.FaceCoeff(-1, 1<<40) }))
	}
	add("Basin.Run/negative", true, func() error { b, _ := Random(4, 4, 1); return b.Run(-1) })
	add("Basin.FillGhostH/wrong shape", true, func() error {
		b, _ := Random(4, 4, 1)
		return b.FillGhostH(&lab.Grid2[float64]{NY: 6, NX: 5, Data: make([]float64, 30)})
	})
	add("Basin.Interior/short field", true, func() error {
		b, _ := Random(4, 4, 1)
		_, err := b.Interior(&lab.Grid2[float64]{NY: 6, NX: 6, Data: make([]float64, 2)})
		return err
	})
	for _, c := range [][2]int{{0, 4}, {4, -1}, {1 << 40, 1 << 40}, {math.MaxInt, 1}} {
		add(fmt.Sprintf("NewBasin/%v", c), true, func() error { _, err := NewBasin(c[0], c[1], Params{}); return err })
		add(fmt.Sprintf("Random/%v", c), true, func() error { _, err := Random(c[0], c[1], 1); return err })
		add(fmt.Sprintf("Delta/%v", c), true, func() error { _, err := Delta(c[0], c[1]); return err })
	}
	add("NewBasin/NaN parameters", false, func() error {
		_, err := NewBasin(4, 4, Params{Dx: math.NaN(), Dt: math.Inf(1)})
		return err
	})
	add("Params.CheckParams/NaN", true, func() error { return Params{Dx: math.NaN()}.CheckParams() })
	add("WriteTable/nil", true, func() error { return WriteTable(nil, nil) })
	add("WriteTable/nil report", true, func() error { return WriteTable(io.Discard, nil) })
	add("BenchReport.Row/nil", false, ignore(func() { (*BenchReport)(nil).Row("h", "best") }))
	add("LoadBench/empty path", true, func() error { _, err := LoadBench(""); return err })
	add("CheckVariant/empty", true, func() error { return CheckVariant("") })
	add("CheckMemory/negative", false, func() error { return CheckMemory(-1, -1, -1) })
	add("PaperGPU.StepGFLOPs/unknown", true, func() error { _, err := PaperK20.StepGFLOPs("", "nope"); return err })
	return cs
}

func TestBadArgumentChild(t *testing.T) {
	badcall.Child(t, badCallEnv, badCalls())
}

func TestBasinBadArgumentsDoNotPanic(t *testing.T) {
	if os.Getenv(badCallEnv) != "" {
		t.Skip("in a child process")
	}
	badcall.Run(t, badCallEnv, "TestBadArgumentChild", badCalls())
}

// TestBadBasinValues checks the values the methods without an error give
// a bad basin, in this process: NaN, −1, nil, never a number that looks
// right.
func TestBadBasinValues(t *testing.T) {
	for name, b := range badBasins() {
		if name == "boundary changed" || name == "zero spacing" || name == "NaN sand" {
			continue // their fields are of the right shape
		}
		assert.True(t, math.IsNaN(b.Mass()), name)
		lo, hi := b.SRange()
		assert.True(t, math.IsNaN(lo) && math.IsNaN(hi), name)
		assert.True(t, math.IsNaN(b.FaceCoeff(0, 1)), name)
	}
	var nilBasin *Basin
	assert.Equal(t, -1, nilBasin.Index(1, 1))
	assert.Nil(t, nilBasin.Clone())
	b, err := Random(5, 4, 9)
	require.NoError(t, err)
	assert.Equal(t, -1, b.Index(7, 0), "i past Nx+1")
	assert.Equal(t, 2*7+3, b.Index(3, 2), "j·(Nx+2) + i")
	assert.True(t, math.IsNaN(b.FaceCoeff(0, len(b.S.Data))))
	_, err = NewBasin(3, 3, Params{})
	require.NoError(t, err)
	assert.ErrorIs(t, (&Basin{}).Validate(), ErrInput)
	changed := b.Clone()
	require.NoError(t, changed.Prepare())
	changed.Bound.East = make([]Inflow, 2)
	assert.ErrorIs(t, changed.Step(), ErrInput, "a boundary changed after Prepare to the wrong length")
}

// TestEveryBasinMethodHasBadCalls checks, from the package's source, that
// badCalls calls every exported method of Basin, so that a new method must
// be added to it.
func TestEveryBasinMethodHasBadCalls(t *testing.T) {
	var methods []string
	for _, n := range badcall.Exports(t) {
		if strings.HasPrefix(n, "Basin.") {
			methods = append(methods, n)
		}
	}
	require.Contains(t, methods, "Basin.Step", "the parser finds the methods")
	called := map[string]bool{}
	for _, c := range badCalls() {
		name, _, _ := strings.Cut(c.Name, "/")
		called[name] = true
	}
	for _, m := range methods {
		assert.True(t, called[m], "method %s has no call in badCalls: add one with a bad basin", m)
	}
	t.Logf("%d methods of Basin called with bad basins: %s", len(methods), strings.Join(methods, ", "))
}
