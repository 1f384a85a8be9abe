package halo

import (
	"errors"
	"fmt"
	"time"

	"stencillab.dev/lab"
)

func init() {
	lab.RegisterSplitter(lab.CPU, RunSplit)
	lab.RegisterSplitter(lab.Sim, RunSplit)
}

// RunSplit runs r, whose Split asks for Ranks goroutine ranks (PY of them
// along y), on the cpu or sim backend; lab.Execute calls it for such a
// run once the package is imported.
//
// The grid is decomposed with a halo of h = the step's time steps per
// pass (1 for a sweep, k for the temporally blocked step). Each rank
// copies its local box out of the input and runs the step on it with the
// backend's own runner (lab.Plan.Runner, from the plan resolved once): the sweep writes the local
// interior, the local faces act as a fixed boundary. After every pass the
// ranks exchange their halos through a ChanComm world (Exchange), and at
// the end each writes its owned box into the output. The output equals
// the single-domain run's bit for bit: x is never split, so every point's
// arithmetic is the same, and the points a local face corrupts lie in the
// halo, which the next exchange replaces.
//
// The Result is Execute's, with Comm (the world's counters over the last
// repetition, per exchange) and RankTimes (each rank's compute, exchange
// and wait time, wall clock). Launch and Stats are rank 0's last pass.
// Millis and Wall time the whole split: the local copies, the passes, the
// exchanges and the gather.
func RunSplit(r lab.Run) (lab.Result, error) {
	fail := func(err error) (lab.Result, error) {
		return lab.Result{}, fmt.Errorf("halo: run %s over %d ranks: %w", r.Step, r.Split.Ranks, err)
	}
	if err := r.CheckCounts(); err != nil {
		return lab.Result{}, err
	}
	switch {
	case r.Backend != lab.CPU && r.Backend != lab.Sim:
		return fail(fmt.Errorf("backend %q: goroutine ranks run on cpu and sim; a GPU split is the gpu package's: %w", r.Backend, lab.ErrUnknown))
	case r.Split.Overlap != "" && r.Split.Overlap != "none":
		return fail(fmt.Errorf("overlap %q: the CPU ranks compute, then exchange; they know only \"none\": %w", r.Split.Overlap, lab.ErrUnknown))
	case r.Kernel != nil:
		return fail(fmt.Errorf("a kernel of one's own runs on one domain; a split runs the registered steps: %w", lab.ErrUnknown))
	}
	if err := r.Split.Check(r.Backend); err != nil {
		return fail(err)
	}
	ranks := r.Split.Size(r.Backend)
	_, py := r.Split.Grid(r.Backend)

	// Execute resolved the run's plan once; every rank's runner comes
	// from it.
	plan := r.Plan
	if !plan.Resolved() {
		var err error
		if plan, err = lab.Resolve(r.Step, r.Backend, r.Config); err != nil {
			return fail(err)
		}
	}
	s, cfg := plan.Step, plan.Config
	run0, err := plan.Runner()
	if err != nil {
		return fail(err)
	}
	runners := []lab.Runner{run0}
	defer func() {
		for _, run := range runners {
			_ = run.Close()
		}
	}()
	per := s.StepsPerPass(cfg)
	steps := r.Steps
	if steps <= 0 {
		steps = per
	}
	if steps%per != 0 {
		return fail(fmt.Errorf("%d time steps is not a multiple of the %d a pass of %s advances", steps, per, s.Name))
	}
	nz, ny, nx := r.NZ, r.NY, r.NX
	if r.Src != nil {
		nz, ny, nx = r.Src.NZ, r.Src.NY, r.Src.NX
	}
	parts, err := Decompose(nz, ny, nx, ranks, py, per)
	if err != nil {
		return fail(err)
	}
	if err := checkMemory(r, parts); err != nil {
		return fail(err)
	}
	src := r.Src
	if src == nil {
		if src, err = lab.NewGrid3[float32](nz, ny, nx); err != nil {
			return fail(err)
		}
		src.FillRandom(r.Seed)
	}
	dst := r.Dst
	if dst == nil {
		dst = src.Clone()
	}
	if err := lab.CheckSweep(dst, src); err != nil {
		return fail(err)
	}
	for range ranks - 1 {
		run, err := plan.Runner()
		if err != nil {
			return fail(err)
		}
		runners = append(runners, run)
	}
	name := plan.Name
	device := plan.Device()
	res := lab.Result{Step: name, Backend: r.Backend, Device: device, NZ: nz, NY: ny, NX: nx, Config: cfg,
		Steps: steps, Src: src, Out: dst}
	passes := steps / per
	for range max(r.Reps, 1) {
		rep, err := runRanks(runners, parts, dst, src, r.C, passes)
		res.Launch = rep.launch
		if rep.launch.Stats != nil {
			res.Stats = *rep.launch.Stats
		}
		res.RankTimes = append(res.RankTimes, rep.times)
		res.Comm = commStats(parts, rep.counters, passes, per)
		if err != nil {
			res.Err = err
			return res, fmt.Errorf("halo: run %s over %d ranks: %w", name, ranks, err)
		}
		res.Millis = append(res.Millis, rep.wall)
		res.Wall = append(res.Wall, rep.wall)
	}
	return res, nil
}

// checkMemory checks, before anything is allocated, that the host grids
// of r and the ranks' two local grids each fit in the memory available.
func checkMemory(r lab.Run, parts []Part) error {
	p0, grids := parts[0], r.HostGrids(true)
	need := uint64(grids) * 4 * uint64(p0.NZ) * uint64(p0.NY) * uint64(p0.NX)
	for _, p := range parts {
		need += 2 * 4 * uint64(p.LocalLen())
	}
	if need < 64<<20 {
		return nil // small runs pass unchecked, as Execute's do
	}
	what := fmt.Sprintf("%s and %d ranks' local grids", lab.RunWhat(grids, p0.NZ, p0.NY, p0.NX), len(parts))
	return lab.CheckMemory(what, need, lab.CubeFit(grids+2))
}

// repetition is what one repetition of a split run measured.
type repetition struct {
	launch   lab.Launch
	times    []lab.RankTime
	counters []Counters
	wall     float64 // ms
}

// runRanks runs one repetition: every rank advances its local box by
// passes passes, exchanging after each, and writes its owned box into dst.
func runRanks(runners []lab.Runner, parts []Part, dst, src *lab.Grid3[float32], c lab.Coeffs, passes int) (repetition, error) {
	rep := repetition{times: make([]lab.RankTime, len(parts))}
	w, err := NewWorld(len(parts))
	if err != nil {
		return rep, err
	}
	ends := make([]time.Time, len(parts))
	launches := make([]lab.Launch, len(parts))
	start := time.Now()
	err = RunRanks(w.Comms(), func(cm *ChanComm) error {
		r := cm.Rank()
		defer func() { ends[r] = time.Now() }()
		p := parts[r]
		cur, err := localBox(src, p)
		if err != nil {
			return err
		}
		next := cur.Clone()
		ex, err := NewExchanger[[]float32](cm, p, p.NX)
		if err != nil {
			return err
		}
		defer ex.Close()
		for range passes {
			t0 := time.Now()
			l, err := runners[r].Sweep(next, cur, c)
			t1 := time.Now()
			rep.times[r].Compute += ms(t1.Sub(t0))
			launches[r] = l
			if err != nil {
				return err
			}
			cur, next = next, cur
			if err := ex.Exchange(cur.Data); err != nil {
				return err
			}
			rep.times[r].Exchange += ms(time.Since(t1))
		}
		gather(dst, cur, p)
		return nil
	})
	end := time.Now()
	rep.wall = ms(end.Sub(start))
	for r := range parts {
		if !ends[r].IsZero() {
			rep.times[r].Wait = ms(end.Sub(ends[r]))
		}
	}
	rep.launch = launches[0]
	rep.counters = w.Counters()
	if err != nil {
		// A rank that failed leaves its peers waiting on it: their
		// deadlock errors follow from the first failure; name it first.
		return rep, firstCause(err)
	}
	return rep, nil
}

// firstCause returns, of the ranks' joined errors, those that are not a
// deadlock their failure caused, or all of them if each is one.
func firstCause(err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	var causes []error
	for _, e := range j.Unwrap() {
		if !errors.Is(e, ErrDeadlock) {
			causes = append(causes, e)
		}
	}
	if len(causes) == 0 {
		return err
	}
	return errors.Join(causes...)
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// localBox copies the part's local box out of the global grid g.
func localBox(g *lab.Grid3[float32], p Part) (*lab.Grid3[float32], error) {
	l, err := lab.NewGrid3[float32](p.LocalNZ(), p.LocalNY(), p.NX)
	if err != nil {
		return nil, fmt.Errorf("halo: local grid of %s: %w", p, err)
	}
	rows := p.LocalNY() * p.NX
	for z := p.LZ0; z < p.LZ1; z++ {
		o := g.Index(z, p.LY0, 0)
		copy(l.Data[p.Local(z, p.LY0, 0):][:rows], g.Data[o:o+rows])
	}
	return l, nil
}

// gather writes the part's owned box of its local grid l into the global
// grid g, interior columns only.
func gather(g, l *lab.Grid3[float32], p Part) {
	for z := p.Z0; z < p.Z1; z++ {
		for y := p.Y0; y < p.Y1; y++ {
			o := g.Index(z, y, 1)
			copy(g.Data[o:o+p.NX-2], l.Data[p.Local(z, y, 1):])
		}
	}
}

// commStats turns the world's counters of one repetition of passes
// exchanges into the per-exchange statistics of lab.CommStats.
func commStats(parts []Part, counters []Counters, passes, per int) *lab.CommStats {
	p0 := parts[0]
	s := &lab.CommStats{Ranks: len(parts), PZ: p0.PZ, PY: p0.PY, Halo: p0.Halo, StepsPerExchange: per, Exchanges: passes,
		Messages: make([]int64, len(parts)), Bytes: make([]int64, len(parts)), RecvBytes: make([]int64, len(parts))}
	if passes < 1 || len(counters) != len(parts) {
		return s
	}
	for r, c := range counters {
		s.Messages[r] = c.SentMessages / int64(passes)
		s.Bytes[r] = c.SentBytes / int64(passes)
		s.RecvBytes[r] = c.RecvBytes / int64(passes)
	}
	return s
}
