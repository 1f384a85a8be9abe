package checks

import (
	"fmt"
	"sort"
	"strings"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// The kernel exercises, one per step of the lab whose description names
// one (basic, shared-memory tiling, coarsening, register tiling), are
// derived from that description (lab.Step3): the exercise's number and
// folder, the student's function, its file, the
// reference kernel, the default tile, the broken variants that name a
// mistake, and the words of the hints.

// kernelStep is the kernel exercise of one simulated step.
type kernelStep struct {
	lab.Step3
	number int    // the exercise's number
	fn     string // the student's function: the step's name in CamelCase
}

// kernelSteps returns the kernel exercises in order: the steps whose
// descriptions name an exercise.
func kernelSteps() []kernelStep {
	var ks []kernelStep
	for _, s := range lab.Steps3() {
		if s.Exercise > 0 {
			ks = append(ks, kernelStep{Step3: s, number: s.Exercise, fn: camel(s.Name)})
		}
	}
	sort.SliceStable(ks, func(a, b int) bool { return ks[a].number < ks[b].number })
	return ks
}

// lookupKernelStep returns the kernel exercise of a step.
func lookupKernelStep(step string) (kernelStep, error) {
	s, err := lab.LookupStep3(step)
	if err != nil {
		return kernelStep{}, err
	}
	for _, ks := range kernelSteps() {
		if ks.Name == s.Name {
			return ks, nil
		}
	}
	return kernelStep{}, fmt.Errorf("checks: step %q has no exercise", step)
}

// camel writes a step name as a Go function name: "five_point" becomes
// "FivePoint".
func camel(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// id is the exercise's folder, e.g. "06_tiled".
func (s kernelStep) id() string { return fmt.Sprintf("%02d_%s", s.number, s.Name) }

// exercise returns the exercise with checks on k.
func (s kernelStep) exercise(k submitted) grading.Exercise {
	e := grading.Exercise{
		ID:    s.id(),
		Title: fmt.Sprintf("%s on the simulator (Fig. %s)", s.Title, s.Figure),
		Files: []string{s.Name + ".go"},
	}
	if s.BlockShape {
		e.Checks = basicChecks(s, k)
	} else {
		e.Checks = tiledChecks(s, k)
	}
	if hiddenKernel != nil {
		e.Checks = append(e.Checks, hiddenKernel(s, k)...)
	}
	return withPolicy(e)
}

// KernelExercise returns the exercise of a simulated step of the lab,
// by name, checking the student's kernel k. An unknown step gives an
// exercise whose one check fails with the reason.
func KernelExercise(step string, k lab.StencilKernel) grading.Exercise {
	s, err := lookupKernelStep(step)
	if err != nil {
		return grading.Exercise{ID: step, Title: "unknown step " + step, Checks: []grading.Check{
			{ID: "step", Title: "the step exists", Points: 1, Run: func(t *grading.T) { t.Errorf("%v", err) }},
		}}
	}
	e := s.exercise(submitted{local: k})
	e.Serve = serveKernel(k)
	return e
}

// hiddenKernel adds the instructor-only checks of a kernel exercise.
var hiddenKernel func(kernelStep, submitted) []grading.Check

// blockHint says how a block of the step is made.
func (s kernelStep) blockHint() string {
	return fmt.Sprintf("%s, %s = a.Tile, or %d when a.Tile is 0", s.Explain.Threads, s.TileName, s.DefaultTile)
}

// trafficHints name the likely mistake per counter.
func (s kernelStep) trafficHints() map[string]string {
	return map[string]string{
		"global loads":                    s.Explain.Loads,
		"shared memory per block (bytes)": s.Explain.Shared,
	}
}

// brokenVariants are the outputs of the step's broken kernels that run to
// the end, alone and with c3 and c4 swapped as Figs. 8.10 and 8.12 print
// them, each naming its mistake.
func (s kernelStep) brokenVariants(sc *simCase) []grading.Variant {
	var vs []grading.Variant
	for _, b := range s.Broken {
		got, _, err := sc.runRef(b.Kernel)
		if err != nil {
			continue // caught by the launch or the hazard checks
		}
		vs = append(vs, grading.Variant{Hint: b.Bug + " (" + b.From + ")", Values: grading.Float64s(got.Data)})
		both := *sc
		both.C = swapped(sc.C, 3, 4)
		bothGot, _, err := both.runRef(b.Kernel)
		if err == nil {
			vs = append(vs, grading.Variant{
				Hint:   b.Bug + ", and c3 and c4 are swapped as Figs. 8.10 and 8.12 print them: the kernel with both mistakes of the seeds",
				Values: grading.Float64s(bothGot.Data)})
		}
	}
	return vs
}
