package gpu

import (
	"fmt"

	"stencillab.dev/lab"
)

// StepsPerPass returns the time steps one launch of the step advances the
// grid by: 1 for a sweep, k for a temporally blocked step.
func (k *Stencil3) StepsPerPass() int { return k.cfg.desc.StepsPerPass(k.cfg.labConfig()) }

// passes returns the launches that advance steps time steps, or an error
// when steps is not a positive multiple of the steps of one pass.
func (k *Stencil3) passes(steps int) (int, error) {
	per := k.StepsPerPass()
	if steps < 1 || steps%per != 0 {
		return 0, fmt.Errorf("gpu: %s: %d time steps: need a positive multiple of the %d one pass advances", k.cfg.step, steps, per)
	}
	return steps / per, nil
}

// advanceTimed runs passes launches ping-ponging between a (which holds
// the input) and b, both holding the same boundary, and returns the buffer
// that holds the result and the time of all the launches, between two CUDA
// events when timed.
func (k *Stencil3) advanceTimed(a, b *Buffer, nz, ny, nx int, c coefs, passes int, timed bool) (*Buffer, Launch, error) {
	fa, g, aa, err := k.prepare(b, a, nz, ny, nx, c)
	if err != nil {
		return nil, Launch{}, err
	}
	ab, err := k.argsFor(g, a, b, nz, ny, nx, c) // the same launch, the buffers swapped
	if err != nil {
		return nil, Launch{}, err
	}
	seq := make([]*Args, passes)
	for p := range seq {
		seq[p] = aa
		if p%2 == 1 {
			seq[p] = ab
		}
	}
	ms, err := k.d.launchSeq(fa, g, seq, timed)
	if err != nil {
		return nil, Launch{}, err
	}
	out := b
	if passes%2 == 0 {
		out = a
	}
	return out, Launch{Geometry: g, Millis: ms}, nil
}

// Advance runs steps time steps of the nz×ny×nx grid held in a,
// ping-ponging between a and b: each pass reads one and writes the other.
// Both must hold the same boundary values, which no pass writes. It returns
// the buffer holding the result and the launches, timed together with
// CUDA events.
func (k *Stencil3) Advance(a, b *Buffer, nz, ny, nx int, c lab.Coeffs, steps int) (*Buffer, Launch, error) {
	passes, err := k.passes(steps)
	if err != nil {
		return nil, Launch{}, err
	}
	return k.advanceTimed(a, b, nz, ny, nx, sevenCoefs(c), passes, true)
}

// MeasureSteps times steps time steps of the grid in src: before every
// run, untimed, src is copied into a and b; then the passes ping-pong
// between them, timed together with CUDA events. warmup untimed runs come
// first. Every run starts from the same input, so values do not grow from
// run to run.
func (k *Stencil3) MeasureSteps(src, a, b *Buffer, nz, ny, nx int, c lab.Coeffs, steps, warmup, reps int) (Measurement, error) {
	return k.measureSteps(src, a, b, nz, ny, nx, sevenCoefs(c), steps, warmup, reps)
}

// measureSteps is MeasureSteps with the step's coefficients.
func (k *Stencil3) measureSteps(src, a, b *Buffer, nz, ny, nx int, c coefs, steps, warmup, reps int) (Measurement, error) {
	if reps < 1 {
		return Measurement{}, fmt.Errorf("gpu: measure %s: %d repetitions: need at least 1", k.cfg.step, reps)
	}
	passes, err := k.passes(steps)
	if err != nil {
		return Measurement{}, err
	}
	var ms []float64
	var g Geometry
	for r := range warmup + reps {
		for _, buf := range []*Buffer{a, b} {
			if _, err := k.d.Copy(buf, src); err != nil {
				return Measurement{}, fmt.Errorf("gpu: measure %s: %w", k.cfg.step, err)
			}
		}
		_, l, err := k.advanceTimed(a, b, nz, ny, nx, c, passes, r >= warmup)
		if err != nil {
			return Measurement{}, err
		}
		if r >= warmup {
			ms, g = append(ms, l.Millis), l.Geometry
		}
	}
	return Summarize(g, ms), nil
}

// Advance is the time loop of lab.Advancer for the gpu backend: src goes to
// both device buffers once, the passes ping-pong between them on the
// device, and the interior of the result comes back into dst.
func (s *sweeper) Advance(dst, src *lab.Grid3[float32], c lab.Coeffs, steps int) (lab.Launch, error) {
	step := s.k.cfg.step
	if err := lab.CheckSweep(dst, src); err != nil {
		return lab.Launch{}, fmt.Errorf("gpu: %s: %w", step, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.buffers(src); err != nil {
		return lab.Launch{}, err
	}
	for _, b := range []*Buffer{s.src, s.dst} {
		if err := b.Upload(0, src.Data); err != nil {
			return lab.Launch{}, fmt.Errorf("gpu: %s: %w", step, err)
		}
	}
	out, l, err := s.k.Advance(s.src, s.dst, src.NZ, src.NY, src.NX, c, steps)
	if err != nil {
		return lab.Launch{}, err
	}
	res := src.Clone()
	if err := out.Download(0, res.Data); err != nil {
		return lab.Launch{}, fmt.Errorf("gpu: %s: %w", step, err)
	}
	for i := 1; i < src.NZ-1; i++ {
		for j := 1; j < src.NY-1; j++ {
			o := src.Index(i, j, 1)
			copy(dst.Data[o:o+src.NX-2], res.Data[o:o+src.NX-2])
		}
	}
	return lab.Launch{Geometry: l.Geometry.Lab(), Millis: l.Millis}, nil
}
