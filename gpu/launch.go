package gpu

import (
	"fmt"
	"slices"
)

// Geometry is the shape of a launch: the grid of blocks, the threads of a
// block and the shared memory each block uses.
type Geometry struct {
	Grid          [3]int // blocks along x, y, z
	Block         [3]int // threads along x, y, z
	SharedBytes   int    // shared memory per block, static and dynamic, bytes
	DynamicShared int    // of which dynamic (sized at launch), bytes
	Planes        int    // z planes each block covers (3D steps), 0 if not applicable
}

// Threads returns the threads of one block.
func (g Geometry) Threads() int { return g.Block[0] * g.Block[1] * g.Block[2] }

// Blocks returns the number of blocks.
func (g Geometry) Blocks() int { return g.Grid[0] * g.Grid[1] * g.Grid[2] }

// dims writes a shape as 34×34×1.
func dims(d [3]int) string { return fmt.Sprintf("%d×%d×%d", d[0], d[1], d[2]) }

// String writes the geometry as the launch configuration <<<grid, block, shared>>>.
func (g Geometry) String() string {
	return fmt.Sprintf("grid %s, block %s, %d B shared", dims(g.Grid), dims(g.Block), g.SharedBytes)
}

// checkGeometry returns an error naming the broken limit when g cannot be
// launched on a device with props p; fnMaxThreads, when positive, is the
// compiled kernel's own limit on threads per block (set by its registers).
func checkGeometry(g Geometry, p Props, fnMaxThreads int, fnRegisters int) error {
	axes := "xyz"
	for i := range 3 {
		if g.Block[i] < 1 {
			return fmt.Errorf("block %s: %c = %d must be at least 1", dims(g.Block), axes[i], g.Block[i])
		}
		if g.Grid[i] < 1 {
			return fmt.Errorf("grid %s: %c = %d must be at least 1", dims(g.Grid), axes[i], g.Grid[i])
		}
		if p.MaxBlockDim[i] > 0 && g.Block[i] > p.MaxBlockDim[i] {
			return fmt.Errorf("block %s: %c = %d exceeds the device's %d", dims(g.Block), axes[i], g.Block[i], p.MaxBlockDim[i])
		}
		if p.MaxGridDim[i] > 0 && g.Grid[i] > p.MaxGridDim[i] {
			return fmt.Errorf("grid %s: %c = %d blocks exceeds the device's %d", dims(g.Grid), axes[i], g.Grid[i], p.MaxGridDim[i])
		}
	}
	if t := g.Threads(); t > p.MaxThreadsPerBlock {
		return fmt.Errorf("block %s = %d threads exceeds %d", dims(g.Block), t, p.MaxThreadsPerBlock)
	}
	if t := g.Threads(); fnMaxThreads > 0 && t > fnMaxThreads {
		return fmt.Errorf("block %s = %d threads exceeds the %d that the compiled kernel's %d registers per thread allow",
			dims(g.Block), t, fnMaxThreads, fnRegisters)
	}
	limit := p.SharedPerBlock
	if g.DynamicShared > 0 && p.SharedPerBlockOptin > limit {
		limit = p.SharedPerBlockOptin // dynamic shared memory may opt in to more
	}
	if g.SharedBytes > limit {
		return fmt.Errorf("%d bytes of shared memory per block exceed the device's %d", g.SharedBytes, limit)
	}
	return nil
}

// Launch is the result of one launch: its geometry and, when timed, the
// kernel's time measured with CUDA events.
type Launch struct {
	Geometry
	Millis float64 // elapsed time between events recorded before and after the kernel
}

// launch runs f with geometry g and arguments a, waits for it and returns
// its time in milliseconds when timed. Errors of the kernel itself (an
// illegal address, say) are reported by the wait.
func (d *Device) launch(f *Function, g Geometry, a *Args, timed bool) (float64, error) {
	return d.launchSeq(f, g, []*Args{a}, timed)
}

// launchSeq launches f with geometry g once for each argument list of seq,
// back to back on the stream, and waits for the last; timed, it returns the
// time of the whole sequence between two CUDA events.
func (d *Device) launchSeq(f *Function, g Geometry, seq []*Args, timed bool) (float64, error) {
	if err := checkGeometry(g, d.props, f.MaxThreads, f.Registers); err != nil {
		return 0, fmt.Errorf("gpu: launch %s: %w", f.Name, err)
	}
	var ms float64
	err := d.do(func() error {
		if timed {
			if err := cuCheck("cuEventRecord", drv.EventRecord(d.evStart, nil)); err != nil {
				return err
			}
		}
		if err := f.optIn(g.DynamicShared); err != nil {
			return err
		}
		for _, a := range seq {
			if err := cuCheck("cuLaunchKernel", drv.LaunchKernel(f.handle, g.Grid, g.Block, g.DynamicShared, nil, a.buf, a.offsets)); err != nil {
				return err
			}
		}
		if !timed {
			return cuCheck("cuStreamSynchronize", drv.StreamSynchronize(nil))
		}
		if err := cuCheck("cuEventRecord", drv.EventRecord(d.evStop, nil)); err != nil {
			return err
		}
		if err := cuCheck("cuEventSynchronize", drv.EventSynchronize(d.evStop)); err != nil {
			return err
		}
		t, r := drv.EventElapsedTime(d.evStart, d.evStop)
		if err := cuCheck("cuEventElapsedTime", r); err != nil {
			return err
		}
		ms = float64(t)
		return nil
	})
	if err != nil {
		if len(seq) == 1 {
			return 0, fmt.Errorf("gpu: launch %s (%s): %w", f.Name, g, err)
		}
		return 0, fmt.Errorf("gpu: launch %s ×%d (%s): %w", f.Name, len(seq), g, err)
	}
	return ms, nil
}

// Measurement is the timing of repeated launches of one kernel.
type Measurement struct {
	Geometry Geometry
	Millis   []float64 // each timed launch, in order
	Median   float64   // median of Millis
	Min, Max float64
}

// Summarize returns the measurement of launches of geometry g that took
// ms milliseconds each: their minimum, median and maximum.
func Summarize(g Geometry, ms []float64) Measurement {
	m := Measurement{Geometry: g, Millis: ms}
	if len(ms) == 0 {
		return m
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	m.Min, m.Max = s[0], s[len(s)-1]
	if n := len(s); n%2 == 1 {
		m.Median = s[n/2]
	} else {
		m.Median = (s[n/2-1] + s[n/2]) / 2
	}
	return m
}

// measure launches warmup untimed times, then reps timed times.
func (d *Device) measure(f *Function, g Geometry, a *Args, warmup, reps int) (Measurement, error) {
	if reps < 1 {
		return Measurement{}, fmt.Errorf("gpu: measure %s: %d repetitions: need at least 1", f.Name, reps)
	}
	for range warmup {
		if _, err := d.launch(f, g, a, false); err != nil {
			return Measurement{}, err
		}
	}
	ms := make([]float64, 0, reps)
	for range reps {
		t, err := d.launch(f, g, a, true)
		if err != nil {
			return Measurement{}, err
		}
		ms = append(ms, t)
	}
	return Summarize(g, ms), nil
}
