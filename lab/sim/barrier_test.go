package sim

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// here returns file:line of its call, as a barrier report names a site.
func here() (string, int) {
	_, file, line, _ := runtime.Caller(1)
	for i := len(file) - 1; i >= 0; i-- {
		if file[i] == '/' {
			file = file[i+1:]
			break
		}
	}
	return file, line
}

// The callers' program counter read from the frame agrees with
// runtime.Callers.
func TestCallerPCMatchesCallers(t *testing.T) {
	a, b := bothPCs()
	assert.Equal(t, b, a)
	assert.NotZero(t, a)
}

//go:noinline
func bothPCs() (uintptr, uintptr) {
	var pc [1]uintptr
	runtime.Callers(2, pc[:])
	return callerPC(), pc[0]
}

// The threads of a block that wait at two different calls of Sync are a
// hazard naming both sites and the block, in every block.
func TestDivergentBarrierSites(t *testing.T) {
	var file string
	var first, second int
	body := func(th *Thread) {
		s := th.Shared1("s", 32)
		s.Store(th.ThreadIdx.X, float32(th.ThreadIdx.X))
		if th.ThreadIdx.X < 16 {
			file, first = here()
			first += 2 // the line of th.Sync()
			th.Sync()
		} else {
			_, second = here()
			second += 2
			th.Sync()
		}
		_ = s.Load(31 - th.ThreadIdx.X)
	}
	s := &Simulator{Workers: 1}
	st, err := s.Launch(Kernel{Name: "divergent", Grid: Dim3{2, 1, 1}, Block: Dim3{32, 1, 1}, Body: body})
	require.ErrorIs(t, err, ErrHazard)
	want := fmt.Sprintf("divergent barriers: barrier at %s:%d reached by 16 threads of block (0,0,0), the others waited at %s:%d",
		file, first, file, second)
	assert.Contains(t, err.Error(), want)
	assert.Contains(t, err.Error(), "(and 1 more hazards)", "block (1,0,0) too")
	assert.Equal(t, int64(2), st.HazardCounts.DivergentBarrier)
	assert.Equal(t, int64(2), st.HazardCounts.Total())
	require.Len(t, st.Hazards, 2)
	h := st.Hazards[0]
	assert.Equal(t, DivergentBarrier, h.Kind)
	assert.Equal(t, Dim3{16, 0, 0}, h.Other, "the first thread at the other site")
	assert.Equal(t, 16, h.Reached)
	assert.Equal(t, 0, h.Interval)
	assert.Equal(t, "divergent barriers", h.Kind.String())
}

// Three sites: the others are listed with their counts; a barrier in a
// loop, reached by every thread at the same call, is not a hazard.
func TestBarrierSitesThreeWaysAndLoops(t *testing.T) {
	var file string
	lines := make([]int, 3)
	body := func(th *Thread) {
		switch th.ThreadIdx.X % 3 {
		case 0:
			file, lines[0] = here()
			th.Sync()
		case 1:
			_, lines[1] = here()
			th.Sync()
		default:
			_, lines[2] = here()
			th.Sync()
		}
	}
	_, err := (&Simulator{}).Launch(Kernel{Grid: Dim3{1, 1, 1}, Block: Dim3{9, 1, 1}, Body: body})
	require.ErrorIs(t, err, ErrHazard)
	assert.Contains(t, err.Error(), fmt.Sprintf("barrier at %s:%d reached by 3 threads of block (0,0,0), the others waited at %s:%d (3 threads), %s:%d (3 threads)",
		file, lines[0]+1, file, lines[1]+1, file, lines[2]+1))

	loop := func(th *Thread) {
		for range 4 {
			th.Sync()
		}
	}
	st, err := (&Simulator{}).Launch(Kernel{Grid: Dim3{3, 1, 1}, Block: Dim3{64, 1, 1}, Body: loop})
	require.NoError(t, err)
	assert.Zero(t, st.HazardCounts.DivergentBarrier)
	assert.Equal(t, int64(3*5), st.Intervals)
}
