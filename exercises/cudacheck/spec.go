// Package cudacheck grades the CUDA exercises (exercises/2N_cuda_*), the
// chapter's techniques applied to the thirteen-point star of radius 2
// (Fig. 8.3D): the student's .cu file is compiled by NVRTC and launched
// on the GPU, and its outputs are compared with the lab's CPU reference,
// lab.Sweep3 with lab.ThirteenPoint.
//
// The checks run in the grader. A child process (the grader's own binary,
// started with -cuda-child, or a test binary), in the sandbox, only
// compiles the file and launches it on inputs drawn from the grader's
// seeds, and answers raw outputs and CUDA-event times on descriptor 3
// (wire.go); the grader computes every reference, comparison and point
// itself. A kernel that faults loses the child's CUDA context, and one that
// hangs never returns: the grader kills the child at the time limit,
// reports the check it was in, and the next exercise gets a fresh process
// and a usable GPU. Without a GPU the child reports needs_gpu: the score
// is withheld, not zero. CPUChildMain is a stand-in of the child on the
// CPU, for the tests of the grader's side.
package cudacheck

import (
	"fmt"
	"math"
	"strings"

	"stencillab.dev/exercises/grading"
)

// Kind is what an exercise asks for.
type Kind int

// Kinds of CUDA exercise.
const (
	Chapter   Kind = iota // a technique of the chapter applied to the thirteen-point star
	FindBug               // a thirteen-point kernel coarsened in z with seed-style mistakes, to fix
	Challenge             // the fastest correct thirteen-point sweep, launched as the file says
)

// Shape is the launch geometry of a thirteen-point kernel on an nz×ny×nx
// grid with tile T, the same as the simulated kernels of exercises 05–08
// (exercises/star).
type Shape int

// Launch geometries.
const (
	// FromFile is the challenge's: the file's BLOCK_* and TILE_* defines.
	FromFile Shape = iota
	// PerPoint: blocks of T×T×T threads, one per point, ⌈n/T⌉ blocks along
	// each axis of n points (the basic kernel; T is the block edge).
	PerPoint
	// Tile3: blocks of T×T×T threads covering an input tile of side
	// IN_TILE_DIM = T with a halo of two, so that OUT_TILE_DIM = T − 4;
	// (n−3)/OUT_TILE_DIM + 1 blocks along each axis (shared-memory tiling).
	Tile3
	// Columns: blocks of T×T×1 threads, each marching in z through the
	// OUT_TILE_DIM = T − 4 output planes of its tile; (n−3)/OUT_TILE_DIM + 1
	// blocks along each axis, z included (coarsening, register tiling).
	Columns
)

// Radius is the thirteen-point star's reach along each axis.
const Radius = 2

// Points is the number of coefficients of the thirteen-point star.
const Points = 13

// Coeffs13 are c0…c12 in the order of lab.ThirteenPoint.
type Coeffs13 = [Points]float64

// Spec is one CUDA exercise.
type Spec struct {
	ID    string // the folder under exercises/
	Title string
	File  string // the file the student completes
	Kind  Kind
	// Shape is the launch; Tile the default tile (the block edge of
	// PerPoint, IN_TILE_DIM otherwise), MinTile the smallest.
	Shape         Shape
	Tile, MinTile int
	// EntryName is the extern "C" __global__ function the file defines.
	EntryName string
	// Define is the macro that carries the tile ("" for the basic kernel,
	// whose tile is its block edge, and for the challenge).
	Define string
	// Tiles are the other tiles the "tiles" check compiles the kernel
	// with.
	Tiles []int
	// Reference is the name of the reference kernel's measured share in
	// the record (Record), "" where none is asked for.
	Reference string
	// Recorded is the reference kernel's share of the float4 copy at
	// N ≈ PerfN in the record, and Threshold the share the performance
	// check asks for: three quarters of it, rounded to the nearest 5 %.
	Recorded, Threshold float64
}

// Entry returns the name of the extern "C" __global__ function the file
// must define.
func (s Spec) Entry() string { return s.EntryName }

// TileDefine returns the define that carries the tile ("" for the basic
// kernel and for the challenge).
func (s Spec) TileDefine() string { return s.Define }

// DefaultTile is the tile a file is compiled with when no other is asked.
func (s Spec) DefaultTile() int { return s.Tile }

// threshold is ¾ of a recorded share, rounded to the nearest 5 %.
func threshold(recorded float64) float64 { return math.Round(recorded*0.75*20) / 20 }

// ChallengeFull returns the share of the copy at which the challenge's
// speed points are all earned: the best chapter kernel's recorded share
// (Record), rounded down to a tenth of the copy, and at least a tenth.
// Each speed check passes at a tenth of the copy more, from 10 % up to it.
func ChallengeFull() float64 {
	best := 0.0
	rec := Record()
	for _, r := range rec.Results {
		best = max(best, rec.Share(r.Kernel))
	}
	return max(0.1, math.Floor(best*10+1e-9)/10)
}

// PerfN is the side around which the timed grid's sides are drawn, fresh
// for each run (PerfN ± PerfN/16), for the performance points.
const PerfN = 512

// The default tiles, those of exercises/star.
const (
	basicBlock     = 8
	tiledTile      = 8
	coarsenedTile  = 32
	minTile        = 2*Radius + 1
	findTheBugTile = coarsenedTile
)

// Specs returns the CUDA exercises in order, their thresholds derived
// from the record.
func Specs() []Spec {
	rec := Record()
	mk := func(s Spec) Spec {
		if s.Reference != "" {
			s.Recorded = rec.Share(s.Reference)
			s.Threshold = threshold(s.Recorded)
		}
		return s
	}
	return []Spec{
		mk(Spec{ID: "20_cuda_basic", Title: "The basic thirteen-point kernel in CUDA C (Figs. 8.3D, 8.6)", File: "basic.cu", Kind: Chapter,
			Shape: PerPoint, Tile: basicBlock, MinTile: 1, EntryName: "basic", Tiles: []int{4, 10}, Reference: "basic"}),
		mk(Spec{ID: "21_cuda_tiled", Title: "Shared-memory tiling of the thirteen-point star in CUDA C, a halo of two (Fig. 8.8)", File: "tiled.cu", Kind: Chapter,
			Shape: Tile3, Tile: tiledTile, MinTile: minTile, EntryName: "tiled", Define: "IN_TILE_DIM", Tiles: []int{6, 9, 10}, Reference: "tiled"}),
		mk(Spec{ID: "22_cuda_coarsened", Title: "Thread coarsening in z of the thirteen-point star in CUDA C, five planes live (Fig. 8.10)", File: "coarsened.cu", Kind: Chapter,
			Shape: Columns, Tile: coarsenedTile, MinTile: minTile, EntryName: "coarsened", Define: "IN_TILE_DIM", Tiles: []int{8, 16, 20}, Reference: "coarsened"}),
		mk(Spec{ID: "23_cuda_register_tiled", Title: "Register tiling of the thirteen-point star in CUDA C (Fig. 8.12)", File: "register_tiled.cu", Kind: Chapter,
			Shape: Columns, Tile: coarsenedTile, MinTile: minTile, EntryName: "register_tiled", Define: "IN_TILE_DIM", Tiles: []int{8, 16, 20}, Reference: "register_tiled"}),
		mk(Spec{ID: "24_cuda_find_the_bug", Title: "Find the bugs: a thirteen-point kernel coarsened in z, on a GPU", File: "fix.cu", Kind: FindBug,
			Shape: Columns, Tile: findTheBugTile, MinTile: minTile, EntryName: "coarsened", Define: "IN_TILE_DIM", Reference: "coarsened"}),
		{ID: "25_cuda_challenge", Title: "Challenge: the fastest correct thirteen-point sweep", File: "challenge.cu", Kind: Challenge, EntryName: "challenge"},
	}
}

// Lookup returns the spec of an exercise by folder name.
func Lookup(id string) (Spec, bool) {
	for _, s := range Specs() {
		if s.ID == id {
			return s, true
		}
	}
	return Spec{}, false
}

// IsCUDA reports whether the exercise with this folder name is graded on
// the GPU.
func IsCUDA(id string) bool {
	_, ok := Lookup(id)
	return ok
}

// Exercise returns the exercise of s with its checks (the hidden ones when
// built with the tag "hidden"; memcheck and racecheck when sanitize). The
// checks run on env, which the child sets up; with a nil env they report
// that they need a GPU (for listing).
func (s Spec) Exercise(e *Env, sanitize bool) grading.Exercise {
	ex := grading.Exercise{ID: s.ID, Title: s.Title, Files: []string{s.File}}
	chk := func(id, title string, pts int, hidden bool, run func(t *grading.T, e *Env)) grading.Check {
		return grading.Check{ID: id, Title: title, Points: pts, Hidden: hidden, Run: func(t *grading.T) {
			if e == nil {
				t.Fatalf("needs an NVIDIA GPU")
			}
			run(t, e)
		}}
	}
	perf := fmt.Sprintf("at least %.0f %% of the float4 copy at N ≈ %d, its timed launches' output right", 100*s.Threshold, PerfN)
	m := s.method()
	methodCheck := func(pts int) []grading.Check {
		if m == nil {
			return nil
		}
		return []grading.Check{chk("method", "the method, measured by the grader: "+m.Technique, pts, false, checkMethod)}
	}
	switch s.Kind {
	case Chapter:
		if m == nil {
			ex.Checks = []grading.Check{
				chk("values", "non-cubic grids, sides not multiples of the tile, thirteen distinct coefficients, each twice", 3, false, checkValues),
				chk("small", "the smallest grids: N = 5, sides 5, 6, 7, and grids with no interior point (a side below 5)", 1, false, checkSmall),
				chk("tiles", fmt.Sprintf("other tiles: %s", intsString(s.Tiles)), 2, false, checkTiles),
				chk("performance", perf, 2, false, checkPerformance),
			}
			break
		}
		ex.Checks = []grading.Check{
			chk("values", "non-cubic grids, sides not multiples of the tile, thirteen distinct coefficients, each twice", 2, false, checkValues),
			chk("small", "the smallest grids: N = 5, sides 5, 6, 7, and grids with no interior point (a side below 5)", 1, false, checkSmall),
			chk("tiles", fmt.Sprintf("other tiles: %s", intsString(s.Tiles)), 1, false, checkTiles),
		}
		ex.Checks = append(ex.Checks, methodCheck(MethodPoints(s))...)
		ex.Checks = append(ex.Checks, chk("performance", perf+", for a kernel that passed its method check", 2, false, checkPerformance))
	case FindBug:
		ex.Checks = []grading.Check{
			chk("every-plane", "inputs that vary along x only: in every column that receives outputs (at least half of them must), every interior plane is written, and every point written is right", 1, false, checkEveryPlane),
			chk("every-column", "inputs that vary along x only: in every plane that receives outputs, every interior point is written, and every point written is right", 1, false, checkEveryColumn),
			chk("one-axis", "inputs that vary along x only, then along y only: the points written are right, and they fill at least half of some plane", 1, false, checkOneAxis),
			chk("barriers", "inputs that vary along z only, launched three times on a grid of about 10⁶ points: the points written with their z neighbours (at least a quarter of the interior) are right, and the same each time", 1, false, checkBarriers),
			chk("values", "the whole sweep on random grids", 1, false, checkFindBugValues),
		}
		ex.Checks = append(ex.Checks, methodCheck(MethodPoints(s))...)
		ex.Checks = append(ex.Checks, chk("performance", perf+", for a kernel that passed every other check", 2, false, checkPerformance))
	case Challenge:
		ex.Checks = []grading.Check{
			chk("values", "non-cubic grids, thirteen distinct coefficients, each twice", 3, false, checkValues),
			chk("small", "the smallest grids: N = 5, sides 5, 6, 7, and grids with no interior point (a side below 5)", 1, false, checkSmall),
		}
		ex.Checks = append(ex.Checks, methodCheck(MethodPoints(s))...)
		for p := 10; p <= int(math.Round(ChallengeFull()*100)); p += 10 {
			share := float64(p) / 100
			ex.Checks = append(ex.Checks, chk(fmt.Sprintf("speed-%d", p), fmt.Sprintf("correct, its method check passed, and at least %d %% of the float4 copy at N ≈ %d, its timed launches' output right", p, PerfN), 2, false,
				func(t *grading.T, e *Env) { checkSpeed(t, e, share) }))
		}
	}
	if hiddenChecks != nil {
		for _, h := range hiddenChecks(s) {
			ex.Checks = append(ex.Checks, chk(h.id, h.title, h.points, true, h.run))
		}
	}
	if sanitize {
		ex.Checks = append(ex.Checks,
			grading.Check{ID: "memcheck", Title: "compute-sanitizer memcheck: no access outside the arrays", Points: 1, Run: func(t *grading.T) { t.Fatalf("runs in the grader") }},
			grading.Check{ID: "racecheck", Title: "compute-sanitizer racecheck: no shared-memory race", Points: 1, Run: func(t *grading.T) { t.Fatalf("runs in the grader") }})
	}
	return ex
}

// MethodPoints is the method check's worth in exercise s (0: none): with
// the speed points it depends on, more than the correctness checks, so
// that a correct kernel without the technique (the plain kernel) earns
// at most half the points, the sanitizer's two included.
func MethodPoints(s Spec) int {
	if s.method() == nil {
		return 0
	}
	switch s.Kind {
	case FindBug:
		return 6
	case Challenge:
		return 3
	}
	return 5
}

type hiddenCheck struct {
	id, title string
	points    int
	run       func(t *grading.T, e *Env)
}

// hiddenChecks is set by hidden.go, built with the tag "hidden".
var hiddenChecks func(s Spec) []hiddenCheck

// HiddenIncluded reports whether the instructor-only checks are built in.
func HiddenIncluded() bool { return hiddenChecks != nil }

// Exercises returns every CUDA exercise with its checks, for the list and
// the points; their checks need the child (see Grade).
func Exercises(sanitize bool) []grading.Exercise {
	var out []grading.Exercise
	for _, s := range Specs() {
		out = append(out, s.Exercise(nil, sanitize))
	}
	return out
}

func intsString(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
