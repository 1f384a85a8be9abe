// Package cudacheck grades the CUDA exercises (exercises/2N_cuda_*): the
// student's .cu file is compiled by NVRTC and checked and timed on the
// GPU against the lab's reference sweep.
//
// The checks are trusted code: they run in a child process of the grader
// (the grader's own binary, started with -cuda-child, or a test binary),
// never in code the student controls; the student's code is CUDA C only,
// which runs on the GPU. A kernel that faults loses the child's CUDA
// context, and one that hangs never returns: the child reports the check
// it is in before each check starts, the grader kills it at the time limit
// and reports that check, and the next exercise gets a fresh process and a
// usable GPU. Without a GPU the child reports needs_gpu: the score is
// withheld, not zero.
package cudacheck

import (
	"fmt"
	"math"
	"strings"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// Kind is what an exercise asks for.
type Kind int

// Kinds of CUDA exercise.
const (
	Chapter   Kind = iota // one of the chapter's kernels, launched as the lab launches it
	FindBug               // the coarsened kernel with the seeds' mistakes, to fix
	Challenge             // the fastest correct sweep, launched as the file says
)

// Spec is one CUDA exercise.
type Spec struct {
	ID    string // the folder under exercises/
	Title string
	File  string // the file the student completes
	Kind  Kind
	// Step is the lab's 3D step whose launch geometry, entry name and tile
	// define the kernel uses (lab.Step3.CUDA); empty for the challenge.
	Step string
	// Tiles are the other tiles the "tiles" check compiles the kernel
	// with (the tile define, or the basic kernel's block edge).
	Tiles []int
	// Recorded is the reference kernel's share of the float4 copy at
	// N = 512 in figures/data/bench_h200.json (pct_copy), and Threshold
	// the share the performance check asks for: three quarters of it,
	// rounded to the nearest 5 % (a test recomputes it from the file).
	Recorded, Threshold float64
}

// Entry returns the name of the extern "C" __global__ function the file
// must define: the lab step's (lab.Step3.CUDA.Entry), or "challenge".
func (s Spec) Entry() string {
	if s.Step == "" {
		return "challenge"
	}
	st, err := lab.LookupStep3(s.Step)
	if err != nil {
		panic(fmt.Sprintf("cudacheck: %s: %v", s.ID, err))
	}
	return st.CUDA.Entry
}

// TileDefine returns the define that carries the tile ("" for the basic
// kernel, whose tile is its block edge, and for the challenge).
func (s Spec) TileDefine() string {
	if s.Step == "" {
		return ""
	}
	st, _ := lab.LookupStep3(s.Step)
	return st.CUDA.TileDefine
}

// DefaultTile is the step's default tile (lab.Step3.DefaultTile).
func (s Spec) DefaultTile() int {
	if s.Step == "" {
		return 0
	}
	st, _ := lab.LookupStep3(s.Step)
	return st.DefaultTile
}

// threshold is ¾ of a recorded share, rounded to the nearest 5 %.
func threshold(recorded float64) float64 { return math.Round(recorded*0.75*20) / 20 }

// Shares of the float4 copy at N = 512 on the H200, from
// figures/data/bench_h200.json (results[].pct_copy); TestThresholdsFromTheRecord
// reads them there.
const (
	recordedBasic     = 0.389
	recordedTiled     = 0.179
	recordedCoarsened = 0.349
	recordedRegister  = 0.420
)

// ChallengeFull is the share of the copy at which the challenge's speed
// points are all earned: a fifth above the best chapter kernel's recorded
// share (register tiling, 42 %), rounded up to 50 %. Each speed check
// passes at a tenth of the copy more, from 10 % to 50 %.
const ChallengeFull = 0.50

// PerfN is the side around which the timed grid's sides are drawn, fresh
// for each run (PerfN ± PerfN/16), for the performance points.
const PerfN = 512

// Specs returns the CUDA exercises in order.
func Specs() []Spec {
	mk := func(id, title, file string, kind Kind, step string, tiles []int, rec float64) Spec {
		return Spec{ID: id, Title: title, File: file, Kind: kind, Step: step, Tiles: tiles, Recorded: rec, Threshold: threshold(rec)}
	}
	return []Spec{
		mk("20_cuda_basic", "The basic kernel in CUDA C (Fig. 8.6)", "basic.cu", Chapter, "basic", []int{4, 10}, recordedBasic),
		mk("21_cuda_tiled", "The shared-memory tiled kernel in CUDA C (Fig. 8.8)", "tiled.cu", Chapter, "tiled", []int{4, 6, 10}, recordedTiled),
		mk("22_cuda_coarsened", "Thread coarsening in CUDA C (Fig. 8.10)", "coarsened.cu", Chapter, "coarsened", []int{8, 16, 20}, recordedCoarsened),
		mk("23_cuda_register_tiled", "Register tiling in CUDA C (Fig. 8.12)", "register_tiled.cu", Chapter, "register_tiled", []int{8, 16, 20}, recordedRegister),
		mk("24_cuda_find_the_bug", "Find the bugs that only a GPU shows", "fix.cu", FindBug, "coarsened", nil, recordedCoarsened),
		{ID: "25_cuda_challenge", Title: "Challenge: the fastest correct sweep", File: "challenge.cu", Kind: Challenge},
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
	switch s.Kind {
	case Chapter:
		ex.Checks = []grading.Check{
			chk("values", "non-cubic grids, sides not multiples of the tile, seven distinct coefficients, each twice", 3, false, checkValues),
			chk("small", "the smallest grids: N = 3, and sides 3, 4, 5", 1, false, checkSmall),
			chk("tiles", fmt.Sprintf("other tiles: %s", intsString(s.Tiles)), 2, false, checkTiles),
			chk("performance", fmt.Sprintf("at least %.0f %% of the float4 copy at N ≈ %d, its timed launches' output right", 100*s.Threshold, PerfN), 2, false, checkPerformance),
		}
	case FindBug:
		ex.Checks = []grading.Check{
			chk("z-loop", "every output plane is written, each from its own planes, sides 3 to 75 (c3 = c4, so a swap does not show)", 3, false, checkZLoop),
			chk("c3-c4", "c3 multiplies the j−1 neighbour and c4 the j+1 one (outputs of two launches with c3 and c4 exchanged)", 2, false, checkC3C4),
			chk("performance", fmt.Sprintf("at least %.0f %% of the float4 copy at N ≈ %d, its timed launches' output right", 100*s.Threshold, PerfN), 1, false, checkPerformance),
		}
	case Challenge:
		ex.Checks = []grading.Check{
			chk("values", "non-cubic grids, seven distinct coefficients, each twice", 3, false, checkValues),
			chk("small", "the smallest grids: N = 3, and sides 3, 4, 5", 1, false, checkSmall),
		}
		for p := 10; p <= int(math.Round(ChallengeFull*100)); p += 10 {
			share := float64(p) / 100
			ex.Checks = append(ex.Checks, chk(fmt.Sprintf("speed-%d", p), fmt.Sprintf("correct, and at least %d %% of the float4 copy at N ≈ %d, its timed launches' output right", p, PerfN), 2, false,
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
