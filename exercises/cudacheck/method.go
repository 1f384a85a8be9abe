package cudacheck

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// The method check: whether the kernel does what the exercise teaches, on
// evidence the grader gathers itself. The child compiles the file to PTX
// (NVRTC's own output for the student's text) and runs a copy of that PTX
// which counts, per thread, the bytes it loads from global and from shared
// memory, the bytes it stores and the barriers it passes (instrumentPTX),
// once, on a grid the check draws; the grader reads the PTX (its loops,
// barriers, shared arrays, and whether values loaded from shared memory
// reach the output), the graded build's static shared memory and
// registers (cuFuncGetAttribute), and the counters, and compares them
// with what the technique implies on that very grid.

// Method is what the method check of an exercise asks for.
type Method struct {
	// Technique names it in the student's words.
	Technique string
	// Shape is the launch whose reference loads the check computes
	// (Tile3, Columns), or FromFile for the challenge (no reference: a
	// bound, MaxLoads).
	Shape Shape
	// LoadSlack: the kernel's global loads per output point may be at most
	// LoadSlack times the technique's on the counted grid.
	LoadSlack float64
	// MaxLoads bounds the global loads per output point where there is no
	// reference (the challenge).
	MaxLoads float64
	// MinShared and MaxShared bound the values read from shared memory per
	// output point (0: no bound).
	MinShared, MaxShared float64
	// MinPlanes and MaxPlanes bound the static shared memory, in planes of
	// IN_TILE_DIM² floats (Tile3: in cubes of IN_TILE_DIM³); 0: no bound.
	MinPlanes, MaxPlanes int
	// PlaneLoop asks for a loop holding the output's store, a load from
	// shared memory and a barrier (and, with LoopStores, a store to
	// shared memory): the march through the planes.
	PlaneLoop, LoopStores bool
	// Arrays are shared arrays the kernel must keep, each of one plane,
	// each read and written (the given kernel of find-the-bug).
	Arrays []string
	// Exchange allows values to move between threads by warp shuffles and
	// votes (the challenge).
	Exchange bool
	// SharedFeeds asks that values read from shared memory reach the
	// output.
	SharedFeeds bool
}

// plainLoads is what the plain kernel loads per output point: the
// thirteen points of the star.
const plainLoads = Points

// methodOf returns the method check of s, nil for the basic kernel (whose
// technique is the plain kernel itself).
func (s Spec) method() *Method {
	switch s.ID {
	case "21_cuda_tiled":
		return &Method{Technique: "shared-memory tiling (each input point loaded once per block into a shared tile with its halo, the thirteen neighbours read from the tile)",
			Shape: Tile3, LoadSlack: 1.15, MinShared: 12, MinPlanes: 1, SharedFeeds: true}
	case "22_cuda_coarsened":
		return &Method{Technique: "thread coarsening in z with five planes in shared memory (each block marches through its planes, loading one new plane per step, the neighbours read from the five shared planes)",
			Shape: Columns, LoadSlack: 1.15, MinShared: 12, MinPlanes: 5, PlaneLoop: true, LoopStores: true, SharedFeeds: true}
	case "23_cuda_register_tiled":
		return &Method{Technique: "register tiling (each block marches through its planes; the current plane in shared memory for the x and y neighbours, the z neighbours carried in registers)",
			Shape: Columns, LoadSlack: 1.15, MinShared: 7.5, MaxShared: 9.5, MinPlanes: 1, MaxPlanes: 4, PlaneLoop: true, SharedFeeds: true}
	case "24_cuda_find_the_bug":
		return &Method{Technique: "the given kernel, fixed: its five shared planes, its march through the planes, its waits for the block",
			Shape: Columns, LoadSlack: 1.15, MinShared: 12, MinPlanes: 5, PlaneLoop: true, LoopStores: true, SharedFeeds: true,
			Arrays: []string{"inPrev2_s", "inPrev_s", "inCurr_s", "inNext_s", "inNext2_s"}}
	case "25_cuda_challenge":
		return &Method{Technique: "reuse of the inputs (an input point loaded from global memory for several outputs: shared-memory tiles, or values kept in registers as the block marches)",
			Shape: FromFile, MaxLoads: 10, Exchange: true}
	}
	return nil
}

// axisLoads is what the chapter's kernels of the shape load along one
// axis of n points with tile: each block's input tile of IN_TILE_DIM
// points, from b·OUT_TILE_DIM − 2, clipped to the grid.
func axisLoads(tile, n int) int {
	out := tile - 2*Radius
	blocks := (n-1-Radius)/out + 1
	total := 0
	for b := range blocks {
		lo, hi := max(b*out-Radius, 0), min(b*out-Radius+tile-1, n-1)
		if hi >= lo {
			total += hi - lo + 1
		}
	}
	return total
}

// techniqueLoads is the global loads per output point of the chapter's
// kernel of the shape with tile on an nz×ny×nx grid: each block loads its
// input tile (Tile3) or its columns through the planes of its tile and
// their halo (Columns), each point once; the same count, the product of
// the axes' (axisLoads), over the interior points.
func techniqueLoads(tile int, dims [3]int) float64 {
	loads, outputs := 1.0, 1.0
	for _, n := range dims {
		loads *= float64(axisLoads(tile, n))
		outputs *= float64(n - 2*Radius)
	}
	return loads / outputs
}

// methodDims draws the counted grid as the timed grid is drawn (perfDims,
// sides around PerfN): a kernel cannot tell the counting run from the
// timed one by its size, and so cannot earn the speed points with a
// kernel other than the one counted.
func methodDims(t *grading.T, e *Env) [3]int {
	return perfDims(t.Rand(), e.perfN)
}

// Inspection is what the method check found: the counting run's numbers
// per output point, and the graded build's attributes.
type Inspection struct {
	Dims                      [3]int
	Outputs                   int
	GlobalLoads, SharedLoads  float64 // values (4 bytes) per output point
	SharedStores, GlobalStore float64
	Barriers                  float64 // per thread
	Technique                 float64 // the technique's global loads per output, 0: none
	Registers, StaticShared   int
	PTX                       string
}

// inspect runs the counting build on a grid drawn for the check and
// returns what it found, or the reason it could not judge.
func (e *Env) inspect(t *grading.T) (*Inspection, bool) {
	s := e.Spec
	d := methodDims(t, e)
	in := randomGrid(t, d[0], d[1], d[2])
	c := randomCoeffs(t)
	n := d[0] * d[1] * d[2]
	e.must(t, e.Kernel(0), "compile")
	h, data, err := e.do(request{Op: opInspect, Dims: d, Seed: in.seed, Coeffs: c[:]}, atMost(n+maxPTX/4+1))
	e.must(t, err, fmt.Sprintf("the counting run on a %d×%d×%d grid", d[0], d[1], d[2]))
	if len(data) < n || len(h.Counters) != counters {
		t.Fatalf("%v: the counting run answered %d floats and %d counters", errProtocol, len(data), len(h.Counters))
	}
	ptx, err := unpackBytes(data[n:], h.PTXBytes)
	if err != nil {
		t.Fatalf("the counting run: %v", err)
	}
	e.ptx = string(ptx)
	// The reference on every core (the grid is as large as the timed one),
	// the boundary NaN: no output.
	want := &lab.Grid3[float32]{NZ: d[0], NY: d[1], NX: d[2], Data: make([]float32, n)}
	for i := range want.Data {
		want.Data[i] = float32(math.NaN())
	}
	if err := Sweep13(want, in.Grid3, c); err != nil {
		t.Fatalf("reference: %v", err)
	}
	wrong := 0
	for i, g32 := range data[:n] {
		g, w := float64(g32), float64(want.Data[i])
		if math.IsNaN(w) != math.IsNaN(g) || (!math.IsNaN(w) && math.Abs(g-w) > tol.Abs+tol.Rel*math.Abs(w)) {
			wrong++
		}
	}
	outputs := (d[0] - 2*Radius) * (d[1] - 2*Radius) * (d[2] - 2*Radius)
	if wrong > 0 {
		t.Fatalf("the method is judged on a correct sweep, and the counting run's output on %d×%d×%d is wrong at %d of its %d points", d[0], d[1], d[2], wrong, n)
	}
	per := func(i int) float64 { return float64(h.Counters[i]) / 4 / float64(outputs) }
	ins := &Inspection{Dims: d, Outputs: outputs,
		GlobalLoads: per(cntGlobalLoad) + per(cntGenericLoad), SharedLoads: per(cntSharedLoad),
		SharedStores: per(cntSharedStore), GlobalStore: per(cntGlobalStore),
		Registers: h.Registers, StaticShared: h.StaticShared, PTX: string(ptx)}
	if th := h.Counters[cntThreads]; th > 0 {
		ins.Barriers = float64(h.Counters[cntBarrier]) / float64(th)
	}
	if m := s.method(); m != nil && m.Shape != FromFile {
		ins.Technique = techniqueLoads(s.Tile, d)
	}
	for k, v := range map[string]float64{"global_loads_per_output": ins.GlobalLoads, "shared_loads_per_output": ins.SharedLoads,
		"barriers_per_thread": ins.Barriers, "registers": float64(ins.Registers), "static_shared_bytes": float64(ins.StaticShared)} {
		e.Metrics[k] = v
	}
	if ins.Technique > 0 {
		e.Metrics["technique_loads_per_output"] = ins.Technique
	}
	return ins, true
}

// judge returns what the kernel lacks of the method m, with the numbers
// measured; none: it has it.
func (m *Method) judge(s Spec, ins *Inspection) []string {
	var miss []string
	e, err := parsePTX(ins.PTX, s.Entry())
	if err != nil {
		return []string{fmt.Sprintf("the grader could not read the PTX NVRTC made of %s (%v)", s.File, err)}
	}
	miss = append(miss, e.audit(m.Exchange)...)
	loads := fmt.Sprintf("your kernel makes %.1f global loads per output point (it loads each input point about %.1f times from global memory)", ins.GlobalLoads, ins.GlobalLoads)
	switch {
	case m.Shape == FromFile && ins.GlobalLoads > m.MaxLoads:
		miss = append(miss, fmt.Sprintf("%s; the plain kernel makes %d, and a kernel that reuses its inputs makes at most %.0f", loads, plainLoads, m.MaxLoads))
	case m.Shape != FromFile && ins.GlobalLoads > m.LoadSlack*ins.Technique:
		miss = append(miss, fmt.Sprintf("%s; the kernel of this exercise makes about %.1f on this grid (the check allows %.1f), the plain kernel %d", loads, ins.Technique, m.LoadSlack*ins.Technique, plainLoads))
	}
	switch {
	case m.MinShared > 0 && ins.SharedLoads < m.MinShared:
		miss = append(miss, fmt.Sprintf("it reads %.1f values from shared memory per output point, and the technique reads at least %.0f of the thirteen neighbours there", ins.SharedLoads, math.Ceil(m.MinShared)))
	case m.MaxShared > 0 && ins.SharedLoads > m.MaxShared:
		miss = append(miss, fmt.Sprintf("it reads %.1f values from shared memory per output point; the technique reads only the x and y neighbours there (8, or 9 with the centre) and keeps the four z neighbours in registers", ins.SharedLoads))
	}
	if m.SharedFeeds && !e.sharedFeedsOutput() {
		miss = append(miss, "no value read from shared memory reaches the output it stores: shared memory declared or filled for show does not count")
	}
	unit, per := "planes of IN_TILE_DIM² floats", s.Tile*s.Tile*4
	if m.Shape == Tile3 {
		unit, per = "tiles of IN_TILE_DIM³ floats", s.Tile*s.Tile*s.Tile*4
	}
	inShared := float64(ins.StaticShared) / float64(per)
	if m.MinPlanes > 0 && ins.StaticShared < m.MinPlanes*per {
		miss = append(miss, fmt.Sprintf("it declares %d bytes of shared memory (%.2f %s, IN_TILE_DIM = %d), and the technique needs %d", ins.StaticShared, inShared, unit, s.Tile, m.MinPlanes))
	}
	if m.MaxPlanes > 0 && ins.StaticShared > m.MaxPlanes*per {
		miss = append(miss, fmt.Sprintf("it declares %d bytes of shared memory (%.2f %s): the technique keeps fewer planes in shared memory than coarsening's five (at most %d)", ins.StaticShared, inShared, unit, m.MaxPlanes))
	}
	if m.SharedFeeds && ins.Barriers < 0.5 {
		miss = append(miss, fmt.Sprintf("its threads pass %.1f barriers (__syncthreads) each: a block that shares values must wait for them", ins.Barriers))
	}
	// The march through the planes: a loop of the compiled code, or, where
	// the compiler unrolled it, a barrier per plane at least.
	planes := float64(s.Tile - 2*Radius)
	if m.PlaneLoop && !e.planeLoop(m.LoopStores) && ins.Barriers < planes {
		what := "a load from shared memory and a barrier"
		if m.LoopStores {
			what = "a store to shared memory, a load from it and a barrier"
		}
		miss = append(miss, fmt.Sprintf("no loop of the compiled kernel holds the output's store with %s, and its threads pass %.1f barriers each where a block marching through its %.0f planes passes one per plane at least: the march through the planes is missing", what, ins.Barriers, planes))
	}
	var gone, unused []string
	for _, a := range m.Arrays {
		sh, ok := e.sharedArray(a)
		if !ok || sh.bytes != s.Tile*s.Tile*4 {
			gone = append(gone, a)
			continue
		}
		if r, w := e.arrayUse(sh.name); !r || !w {
			unused = append(unused, a)
		}
	}
	if len(gone) > 0 {
		miss = append(miss, fmt.Sprintf("the given kernel's shared arrays %s (one plane each) are not in the compiled kernel: the points for the fix are for the given kernel, fixed, with its structure kept; a kernel written anew earns the correctness checks only", strings.Join(gone, ", ")))
	}
	if len(unused) > 0 {
		miss = append(miss, fmt.Sprintf("the shared arrays %s are not both written and read: the given kernel's planes are kept in them", strings.Join(unused, ", ")))
	}
	return miss
}

// checkMethod is the method check.
func checkMethod(t *grading.T, e *Env) {
	m := e.Spec.method()
	ins, ok := e.inspect(t)
	if !ok {
		return
	}
	miss := m.judge(e.Spec, ins)
	d := ins.Dims
	measured := fmt.Sprintf("Measured by the grader on a %d×%d×%d grid (a counting build of your file): %.1f global loads, %.1f shared loads and %.1f shared stores per output point, %.1f barriers per thread; the graded build has %d registers per thread and %d bytes of static shared memory.",
		d[0], d[1], d[2], ins.GlobalLoads, ins.SharedLoads, ins.SharedStores, ins.Barriers, ins.Registers, ins.StaticShared)
	if len(miss) > 0 {
		t.Fatalf("the method check looks for %s, and did not find it:\n- %s\n%s", m.Technique, strings.Join(miss, "\n- "), measured)
	}
	e.Notes = append(e.Notes, "Method check: "+measured)
}

// methodPassed reports whether the kernel passed its method check (true
// for an exercise without one).
func (e *Env) methodPassed() bool {
	return e.Spec.method() == nil || e.Passed["method"]
}

// fetchPTX asks the child for the kernel's PTX (an inspect request on a
// small grid), for the audit of an exercise without a method check; a
// fault or hang ends the exercise as in a check.
func (e *Env) fetchPTX() {
	d := [3]int{9, 11, 13}
	n := d[0] * d[1] * d[2]
	c := distinctCoeffs(newRand(uint64(n)), 0.01)
	h, data, err := e.do(request{Op: opInspect, Dims: d, Seed: 1, Coeffs: c[:]}, atMost(n+maxPTX/4+1))
	if err != nil {
		var fe *faultError
		var he *hungError
		var de *diedError
		if errors.As(err, &fe) || errors.As(err, &he) || errors.As(err, &de) {
			e.fatal, e.fatalIn = err, "sanitizer audit"
		}
		return
	}
	if len(data) >= n {
		if ptx, err := unpackBytes(data[n:], h.PTXBytes); err == nil {
			e.ptx = string(ptx)
		}
	}
}
