package gpu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"stencillab.dev/lab"
)

// ChooseSpec says how Choose times a step's candidates.
type ChooseSpec struct {
	N     int // the cube's side
	Steps int // time steps each timed run advances (1: a sweep)
	// Warmup and Reps are each candidate's untimed and timed runs; the
	// median of the timed ones ranks it.
	Warmup, Reps int
	// Tolerance is the largest difference from the host's run allowed a
	// time step, scaled by the reference's largest magnitude (at least 1),
	// as stencil bench checks runs of several steps.
	Tolerance float64
	Mode      TuneMode
	// Dir holds the cached choices (ChoiceDir); "": nothing is cached and
	// every call with TuneCache times again.
	Dir  string
	Seed uint64    // of the random input, filled on the device
	Log  io.Writer // hears each candidate's outcome; nil: nothing
}

// Choose returns the setting a step should run with on this device for a
// cube of side sp.N over sp.Steps time steps: with TuneOff the registered
// default (nothing timed); with TuneCache the cached choice of the key
// (ChoiceKey) if there is one; otherwise every candidate (Candidates) that
// advances sp.Steps in whole passes is compiled, timed from the same random
// input with CUDA events, and its whole output compared with the host's
// run (lab.Advance or lab.Advance13); the fastest that matched is kept and
// cached in sp.Dir.
func (d *Device) Choose(p lab.Plan, sp ChooseSpec) (Choice, error) {
	if sp.Mode == TuneOff {
		return Choice{N: sp.N, Setting: Setting{}}, nil
	}
	if sp.N < 2*p.Step.StarRadius()+1 || sp.Steps < 1 || sp.Reps < 1 || sp.Warmup < 0 {
		return Choice{}, fmt.Errorf("gpu: timed choice of %s: side %d, %d steps, %d timed runs: need a point %d from every face, a step and a timed run",
			p.Name, sp.N, sp.Steps, sp.Reps, p.Step.StarRadius())
	}
	all, err := Candidates(p)
	if err != nil {
		return Choice{}, err
	}
	var cands []Setting
	hash := sha256.New()
	seen := map[string]bool{}
	for _, s := range all {
		q, err := p.Configure(lab.Config{Tile: s.Tile})
		if err != nil {
			continue
		}
		c, err := resolvedConfig(q.Step, q.Config, s.Defines)
		if err != nil {
			continue
		}
		if sp.Steps%c.desc.StepsPerPass(c.labConfig()) != 0 {
			continue
		}
		name, text, err := c.source()
		if err != nil {
			return Choice{}, err
		}
		if !seen[name] {
			seen[name] = true
			fmt.Fprintf(hash, "%s\n%d\n%s", name, len(text), text)
		}
		cands = append(cands, s)
	}
	if len(cands) == 0 {
		return Choice{}, fmt.Errorf("gpu: timed choice of %s: no candidate advances %d time steps in whole passes", p.Name, sp.Steps)
	}
	key := ChoiceKey{Device: d.props.Name, Step: p.Step.Name, Class: SizeClass(sp.N), Steps: sp.Steps,
		Source: hex.EncodeToString(hash.Sum(nil))}
	logf := func(format string, a ...any) {
		if sp.Log != nil {
			fmt.Fprintf(sp.Log, format, a...)
		}
	}
	if sp.Mode == TuneCache && sp.Dir != "" {
		if c, ok := LoadChoice(sp.Dir, key); ok {
			for _, s := range cands {
				if s.String() == c.Setting.String() {
					// The candidate of the step's own table runs, never
					// what the file holds.
					c.Setting = s
					logf("choice: %s at N=%d (class %d, %d steps): %s, cached (timed at N=%d: %.4f ms)\n",
						key.Step, sp.N, key.Class, key.Steps, c.Setting, c.N, c.Ms)
					return c, nil
				}
			}
		}
	}
	r, err := d.newChoiceRun(p, sp)
	if err != nil {
		return Choice{}, err
	}
	defer r.free()
	best, tried, err := pick(cands, func(s Setting) (float64, error) {
		ms, err := r.try(s)
		if err != nil {
			logf("choice: %s at N=%d: %s: %v\n", key.Step, sp.N, s, err)
		} else {
			logf("choice: %s at N=%d: %s: %.4f ms\n", key.Step, sp.N, s, ms)
		}
		return ms, err
	})
	if err != nil {
		return Choice{}, fmt.Errorf("gpu: %s at N=%d: %w", p.Name, sp.N, err)
	}
	c := Choice{Key: key, N: sp.N, Setting: cands[best], Ms: tried[best].Ms, Tried: tried}
	logf("choice: %s at N=%d (class %d, %d steps): %s, the fastest of %d\n", key.Step, sp.N, key.Class, key.Steps, c.Setting, len(cands))
	if sp.Dir != "" {
		if err := SaveChoice(sp.Dir, c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// choiceRun is the state of one timed choice: the input on the device and
// the host, the host's result, and the two buffers the runs ping-pong
// between.
type choiceRun struct {
	d        *Device
	p        lab.Plan
	sp       ChooseSpec
	co       coefs
	src, a   *Buffer
	b        *Buffer
	in, want *lab.Grid3[float32]
	scale    float64
}

// newChoiceRun allocates the grids of a choice and runs the host's
// reference once for every candidate.
func (d *Device) newChoiceRun(p lab.Plan, sp ChooseSpec) (*choiceRun, error) {
	n := sp.N
	r := &choiceRun{d: d, p: p, sp: sp}
	if err := d.CheckFree(fmt.Sprintf("3 grids of %d³ for the timed choice of %s", n, p.Name), 3*4*uint64(n)*uint64(n)*uint64(n)); err != nil {
		return nil, err
	}
	var err error
	for _, b := range []**Buffer{&r.src, &r.a, &r.b} {
		if *b, err = d.Alloc(n * n * n); err != nil {
			r.free()
			return nil, err
		}
	}
	if err := r.src.FillRandom(sp.Seed); err != nil {
		r.free()
		return nil, err
	}
	if r.in, err = lab.NewCube[float32](n); err != nil {
		r.free()
		return nil, err
	}
	if err := r.src.Download(0, r.in.Data); err != nil {
		r.free()
		return nil, err
	}
	r.want = r.in.Clone()
	if p.Step.StarRadius() == lab.Radius13 {
		c := lab.DistinctCoeffs13()
		r.co = thirteenCoefs(c)
		err = lab.Advance13(r.want, r.in, c, sp.Steps)
	} else {
		c := lab.DistinctCoeffs()
		r.co = sevenCoefs(c)
		err = lab.Advance(lab.SevenPoint[float32], r.want, r.in, c, sp.Steps)
	}
	if err != nil {
		r.free()
		return nil, fmt.Errorf("gpu: timed choice of %s: the host's reference: %w", p.Name, err)
	}
	r.scale = lab.LargestFinite(r.want.Data)
	return r, nil
}

// free releases the device buffers.
func (r *choiceRun) free() {
	for _, b := range []*Buffer{r.src, r.a, r.b} {
		if b != nil {
			b.Free()
		}
	}
}

// try compiles, times and checks one candidate: its median time, or why
// it failed.
func (r *choiceRun) try(s Setting) (float64, error) {
	q, err := r.p.Configure(lab.Config{Tile: s.Tile})
	if err != nil {
		return 0, err
	}
	k, err := r.d.Compile(q, s.Defines)
	if err != nil {
		return 0, err
	}
	n := r.sp.N
	m, err := k.measureSteps(r.src, r.a, r.b, n, n, n, r.co, r.sp.Steps, r.sp.Warmup, r.sp.Reps)
	if err != nil {
		return 0, err
	}
	// measureSteps's runs start in a; an even number of passes ends there.
	out := r.a
	if (r.sp.Steps/k.StepsPerPass())%2 == 1 {
		out = r.b
	}
	got := r.in.Clone()
	if err := out.Download(0, got.Data); err != nil {
		return 0, err
	}
	diff, err := lab.Compare3(got, r.want)
	if err != nil {
		return 0, err
	}
	limit := r.sp.Tolerance * float64(r.sp.Steps) * max(1, r.scale)
	if !(diff.MaxAbs <= limit) {
		return 0, fmt.Errorf("the whole output differs from the host's run by %g, over the %g allowed", diff.MaxAbs, limit)
	}
	return m.Median, nil
}
