package model

import (
	"fmt"
	"strconv"
	"strings"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/run"
)

// TemporalSim is one simulated pass of the temporal step with k time steps,
// checked against k reference sweeps.
type TemporalSim struct {
	K         int
	N         int
	Loads     int64   // global loads, elements
	Stores    int64   // global stores, elements
	Flops     int64   // operations performed
	OpPerByte float64 // operations over bytes loaded
	MaxDiff   float64 // against lab.Advance of k sweeps
}

// MaxTemporalK bounds the time steps of one simulated pass of the temporal
// step (SimulateTemporal's k).
const MaxTemporalK = 64

// SimulateTemporal runs one pass of the temporal step on an n³ grid on the
// simulator for each k, and checks each against k reference sweeps with
// the boundary fixed.
func SimulateTemporal(n int, ks []int) ([]TemporalSim, error) {
	if n < 3 || n > run.MaxSimN {
		return nil, fmt.Errorf("nbrun: temporal: N = %d: want 3 to %d: %w", n, run.MaxSimN, lab.ErrSize)
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("nbrun: temporal: no k to simulate: %w", lab.ErrSize)
	}
	for _, k := range ks {
		if k < 1 || k > MaxTemporalK {
			return nil, fmt.Errorf("nbrun: temporal: k = %d time steps a pass: want 1 to %d: %w", k, MaxTemporalK, lab.ErrSize)
		}
	}
	src, err := lab.NewCube[float32](n)
	if err != nil {
		return nil, err
	}
	src.FillRandom(run.Seed)
	c := lab.DistinctCoeffs()
	var out []TemporalSim
	for _, k := range ks {
		res, err := lab.Execute(lab.Run{Step: "temporal", Backend: lab.Sim, Config: lab.Config{Tile: k}, Src: src, C: c, Steps: k,
			Progress: sim.PrintProgress(run.ProgressOutput)})
		if err != nil {
			return nil, fmt.Errorf("nbrun: temporal at k = %d: %w", k, err)
		}
		want := src.Clone()
		if err := lab.Advance(lab.SevenPoint[float32], want, src, c, k); err != nil {
			return nil, err
		}
		d, err := lab.Compare3(res.Out, want)
		if err != nil {
			return nil, err
		}
		st := res.Stats
		out = append(out, TemporalSim{K: k, N: n, Loads: st.GlobalLoads, Stores: st.GlobalStores, Flops: st.Flops,
			OpPerByte: st.OpPerByte(), MaxDiff: d.MaxAbs})
	}
	return out, nil
}

// TemporalSimTable formats simulated passes, one line per k: the traffic
// per interior point and time step, which one sweep keeps at one load and
// one store.
func TemporalSimTable(runs []TemporalSim) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%3s %12s %12s %14s %10s %10s %10s\n", "k", "loads/pt/step", "stores/pt/step", "ops/pt/step", "OP/B", "useful OP/B", "max diff")
	for _, r := range runs {
		pts := float64((r.N-2)*(r.N-2)*(r.N-2)) * float64(r.K)
		_, useful := lab.TemporalIntensity(lab.TemporalSimTile, r.K)
		fmt.Fprintf(&s, "%3d %12.3f %12.3f %14.2f %10.2f %10.2f %10.2g\n", r.K, float64(r.Loads)/pts, float64(r.Stores)/pts,
			float64(r.Flops)/pts, r.OpPerByte, useful, r.MaxDiff)
	}
	return s.String()
}

// TemporalTiles are the GPU tiles (TB_BX×TB_BY input points) whose limits
// the notebook shows.
var TemporalTiles = [][2]int{{64, 32}, {128, 16}, {128, 32}, {32, 32}}

// HopperSharedOptin is the shared memory a block may use on an H100 or
// H200 after opting in: 227 KiB.
const HopperSharedOptin = 227 * 1024

// TemporalLimit is what one tile of the temporal kernel holds at k on the
// GPU, from its launch plan at N = 512.
type TemporalLimit struct {
	BX, BY, K    int
	March        int // the default march at k (MarchDefine): 1 for k ≤ 4, 2 above
	Threads      int
	SharedBytes  int     // dynamic shared memory per block: 3k planes of the tile for march 1, 2k for marches 0 and 2
	HeldRegs     int     // registers each thread holds across planes: 4 a register slot, 3 slots a time step for march 1, 2 for 0 and 2
	OutputShare  float64 // outputs over input points of the tile
	ReadsPerStep float64 // DRAM bytes read and written per output point and time step, ideal caching
	Err          string  // why the tile has no output at this k
}

// TemporalLimits works out, without a device, what each tile needs and
// gives at each k: the launch from gpu.PlanLaunch at N = 512, with the
// march it chooses at k.
func TemporalLimits(ks []int) []TemporalLimit {
	var out []TemporalLimit
	for _, t := range TemporalTiles {
		for _, k := range ks {
			l := TemporalLimit{BX: t[0], BY: t[1], K: k}
			p, err := gpu.PlanLaunch("temporal", gpu.Options{Tile: k, Defines: []gpu.Define{
				{Name: "TB_BX", Value: fmt.Sprint(t[0])}, {Name: "TB_BY", Value: fmt.Sprint(t[1])}}}, 512, 512, 512)
			if err != nil {
				l.Err = err.Error()
				out = append(out, l)
				continue
			}
			for _, d := range p.Defines {
				if d.Name == data.MarchDefine {
					l.March, _ = strconv.Atoi(d.Value)
				}
			}
			// Each time level keeps a float4 (4 registers) in each of its
			// register slots: three for march 1, two for marches 0 and 2.
			slots := 2
			if l.March == 1 {
				slots = 3
			}
			l.HeldRegs = 4 * slots * k
			g := p.Geometry
			l.Threads, l.SharedBytes = g.Threads(), g.DynamicShared
			halo := (k + 3) / 4 * 4
			ox, oy := t[0]-2*halo, t[1]-2*k
			l.OutputShare = float64(ox*oy) / float64(t[0]*t[1])
			// Each input point read once per pass, each output written
			// once: 4/share + 4 bytes per output point, over k steps.
			l.ReadsPerStep = (4/l.OutputShare + 4) / float64(k)
			out = append(out, l)
		}
	}
	return out
}

// TemporalLimitsTable formats TemporalLimits.
func TemporalLimitsTable(ls []TemporalLimit) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%-7s %3s %5s %7s %10s %9s %9s %10s\n", "tile", "k", "march", "threads", "shared KiB", "held regs", "outputs", "B/pt/step")
	for _, l := range ls {
		tile := fmt.Sprintf("%dx%d", l.BX, l.BY)
		if l.Err != "" {
			fmt.Fprintf(&s, "%-7s %3d  no output: TB_BY must exceed 2k\n", tile, l.K)
			continue
		}
		over := ""
		if l.SharedBytes > HopperSharedOptin {
			over = fmt.Sprintf("  over the %d KiB a Hopper block may have", HopperSharedOptin/1024)
		}
		fmt.Fprintf(&s, "%-7s %3d %5d %7d %10.0f %9d %8.0f%% %10.2f%s\n", tile, l.K, l.March, l.Threads, float64(l.SharedBytes)/1024, l.HeldRegs,
			100*l.OutputShare, l.ReadsPerStep, over)
	}
	return s.String()
}
