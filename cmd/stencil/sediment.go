package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"stencillab.dev/gpu"
	gsed "stencillab.dev/gpu/sediment"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sediment"
)

func init() {
	commands["sediment"] = command{
		summary: "run the sediment-transport case study (Su et al., ICCS 2013) or bench its kernels",
		run:     sedimentCmd,
	}
}

// sedimentResult is the JSON form of a sediment run.
type sedimentResult struct {
	Nx        int     `json:"nx"`
	Ny        int     `json:"ny"`
	Steps     int     `json:"steps"`
	Scenario  string  `json:"scenario"`
	Backend   string  `json:"backend"`
	Variant   string  `json:"variant"` // "reference" on the CPU
	Device    string  `json:"device,omitempty"`
	Dt        float64 `json:"dt"`
	DtLimit   float64 `json:"dt_limit"`
	Seconds   float64 `json:"seconds"` // wall time on the CPU, kernel time (CUDA events) on the GPU
	GFLOPs    float64 `json:"gflops"`  // 55 + 34 flops a point and step, the paper's count
	Mass0     float64 `json:"mass0"`   // Σh over the interior at the start
	Mass      float64 `json:"mass"`    // Σh at the end
	Inflow    float64 `json:"inflow"`  // what the boundary brought in: steps·Δt·InflowRate
	MassDrift float64 `json:"mass_drift"`
	SMin      float64 `json:"s_min"`
	SMax      float64 `json:"s_max"`
	// With -check on the GPU: max |GPU − CPU| over max |CPU| of h and s
	// after the same steps of the CPU reference.
	RelErrH *float64 `json:"rel_err_h,omitempty"`
	RelErrS *float64 `json:"rel_err_s,omitempty"`
}

// defaultTune is the set of best-variant shapes the bench tries: about
// ROWS rows a warp × WARPS warps a block, optionally ×MINB resident blocks
// asked of the compiler, and f for the fast division.
const defaultTune = "32x2,32x4,64x2,32x2f,32x4f,64x2f,32x2x3f,32x4x2f"

func sedimentCmd(args []string, stdout, stderr io.Writer) int {
	code, err := sedimentMain(args, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "stencil sediment: %v\n", strings.TrimPrefix(err.Error(), "usage: "))
	}
	return code
}

// parseTune reads ROWSxWARPS[xMINB][f],… into the best variant's options.
func parseTune(s string) ([]gsed.Options, error) {
	var out []gsed.Options
	bad := fmt.Errorf("-tune %q: want ROWSxWARPS[xMINB][f],… with rows ≥ 1, 1 to 32 warps and 0 to 64 blocks", s)
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		o := gsed.Options{FastDiv: strings.HasSuffix(f, "f")}
		parts := strings.Split(strings.TrimSuffix(f, "f"), "x")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, bad
		}
		n := make([]int, len(parts))
		for i, p := range parts {
			v, err := strconv.Atoi(p)
			if err != nil {
				return nil, bad
			}
			n[i] = v
		}
		o.RY, o.Warps = n[0], n[1]
		if len(n) == 3 {
			o.MinBlocks = n[2]
		}
		if o.RY < 1 || o.Warps < 1 || o.Warps > 32 || o.MinBlocks < 0 || o.MinBlocks > 64 {
			return nil, bad
		}
		out = append(out, o)
	}
	return out, nil
}

func sedimentMain(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("stencil sediment", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	nx := fs.Int("nx", 4096, "interior points in x")
	ny := fs.Int("ny", 4096, "interior points in y")
	steps := fs.Int("steps", 10, "time steps")
	variant := fs.String("variant", "best", "GPU kernels: baseline, opt1, opt2, opt3 or best")
	backend := fs.String("backend", lab.CPU, "where to run: cpu (the float64 reference) or gpu")
	scenario := fs.String("scenario", "random", "initial basin: random (zero-flux boundary) or delta (a river enters from the west)")
	seed := fs.Uint64("seed", 1, "seed of the random scenario")
	split := fs.Bool("split", false, "best variant: launch the h- and s-kernels separately instead of the fused one")
	check := fs.Bool("check", false, "gpu: also run the CPU reference and report the relative error of h and s")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the summary")
	bench := fs.Bool("bench", false, "time every variant's kernels on the GPU and print the paper's table layout")
	reps := fs.Int("reps", 20, "bench: timed launches per kernel (the median is reported)")
	warmup := fs.Int("warmup", 3, "bench: untimed launches before timing")
	tune := fs.String("tune", defaultTune, "bench: best-variant shapes to try, ROWSxWARPS[xMINB][f] (f: fast division)")
	if err := fs.Parse(args); err != nil {
		return 2, fmt.Errorf("%w: %v", errUsage, err)
	}
	switch {
	case fs.NArg() > 0:
		return 2, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case *nx < 1 || *ny < 1:
		return 2, fmt.Errorf("-nx %d -ny %d: the mesh needs at least one interior point per side", *nx, *ny)
	case (float64(*nx)+2)*(float64(*ny)+2) > lab.MaxPoints:
		// In floating point, from the values given: nx+2 may overflow.
		return 2, fmt.Errorf("-nx %d -ny %d: (nx+2)·(ny+2) = %.4g points with ghosts exceeds the limit of %d points",
			*nx, *ny, (float64(*nx)+2)*(float64(*ny)+2), int64(lab.MaxPoints))
	case *steps < 0:
		return 2, fmt.Errorf("-steps %d: the number of steps must not be negative", *steps)
	case *steps > lab.MaxSteps:
		return 2, fmt.Errorf("-steps %d: exceeds the limit of %d time steps", *steps, lab.MaxSteps)
	case *backend != lab.CPU && *backend != lab.GPU:
		return 2, fmt.Errorf("-backend %q: want cpu or gpu", *backend)
	case *scenario != "random" && *scenario != "delta":
		return 2, fmt.Errorf("-scenario %q: want random or delta", *scenario)
	case *scenario == "delta" && (*nx < 8 || *ny < 8):
		return 2, fmt.Errorf("-scenario delta needs -nx and -ny of at least 8, not %d and %d", *nx, *ny)
	case *reps < 1 || *reps > lab.MaxReps:
		return 2, fmt.Errorf("-reps %d: need 1 to %d timed launches (the limit)", *reps, lab.MaxReps)
	case *warmup < 0 || *warmup > lab.MaxReps:
		return 2, fmt.Errorf("-warmup %d: must be 0 to %d", *warmup, lab.MaxReps)
	}
	if err := sediment.CheckVariant(*variant); err != nil {
		return 2, fmt.Errorf("-variant: %w", err)
	}
	shapes, err := parseTune(*tune)
	if err != nil {
		return 2, err
	}
	if *bench {
		if *backend != lab.GPU {
			return 2, fmt.Errorf("-bench times GPU kernels: add -backend gpu")
		}
		return sedimentBench(stdout, args, *nx, *ny, *seed, *warmup, *reps, shapes, *asJSON)
	}

	// The basin, and the CPU reference's copy with -check on the GPU,
	// counted before anything is allocated.
	basins := 1
	if *check && *backend == lab.GPU {
		basins = 2
	}
	if err := sediment.CheckMemory(*nx, *ny, basins); err != nil {
		return 1, err
	}
	var b *sediment.Basin
	if *scenario == "delta" {
		b, err = sediment.Delta(*nx, *ny)
	} else {
		b, err = sediment.Random(*nx, *ny, *seed)
	}
	if err != nil {
		return 1, err
	}
	lim, err := b.Limits()
	if err != nil {
		return 1, err
	}
	res := sedimentResult{Nx: *nx, Ny: *ny, Steps: *steps, Scenario: *scenario, Backend: *backend,
		Variant: "reference", Dt: b.P.Dt, DtLimit: lim.Dt, Mass0: b.Mass()}
	res.Inflow = float64(*steps) * b.P.Dt * b.InflowRate()
	if *backend == lab.CPU {
		start := time.Now()
		if err := b.Run(*steps); err != nil {
			return 1, err
		}
		res.Seconds = time.Since(start).Seconds()
	} else {
		d, err := gpu.Default()
		if err != nil {
			return 1, err
		}
		res.Variant, res.Device = *variant, d.Props().Name
		var ref *sediment.Basin
		if *check {
			ref = b.Clone()
		}
		r, err := gsed.New(d, b, *variant, gsed.Options{Split: *split})
		if err != nil {
			return 1, err
		}
		defer r.Free()
		t, err := r.Run(*steps)
		if err != nil {
			return 1, err
		}
		if err := r.Download(b); err != nil {
			return 1, err
		}
		res.Seconds = t.Seconds()
		if ref != nil {
			if err := ref.Run(*steps); err != nil {
				return 1, fmt.Errorf("CPU reference: %w", err)
			}
			eh, es := relErr(b, b.H.Data, ref.H.Data), relErr(b, b.S.Data, ref.S.Data)
			res.RelErrH, res.RelErrS = &eh, &es
		}
	}
	res.Mass = b.Mass()
	res.MassDrift = (res.Mass - res.Mass0 - res.Inflow) / math.Abs(res.Mass0)
	if res.Seconds > 0 {
		res.GFLOPs = float64(sediment.FlopsH+sediment.FlopsS) * float64(*nx) * float64(*ny) * float64(*steps) / res.Seconds / 1e9
	}
	res.SMin, res.SMax = b.SRange()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return 1, fmt.Errorf("write JSON (an infinite error means unwritten points): %w", err)
		}
		return 0, nil
	}
	printSediment(stdout, res)
	return 0, nil
}

// relErr returns max |got − want| over max |want| on the interior, +Inf
// where got has a NaN.
func relErr(b *sediment.Basin, got, want []float64) float64 {
	var d, m float64
	for j := 1; j <= b.Ny; j++ {
		for i := 1; i <= b.Nx; i++ {
			k := b.Index(i, j)
			if math.IsNaN(got[k]) {
				return math.Inf(1)
			}
			d, m = max(d, math.Abs(got[k]-want[k])), max(m, math.Abs(want[k]))
		}
	}
	return d / m
}

func printSediment(w io.Writer, r sedimentResult) {
	rule := strings.Repeat("=", 64)
	fmt.Fprintln(w, rule)
	where := "CPU (float64 reference, all cores)"
	if r.Backend == lab.GPU {
		where = fmt.Sprintf("%s, %s kernels", r.Device, r.Variant)
	}
	fmt.Fprintf(w, "  Sediment transport (Su et al., ICCS 2013) on %s\n", where)
	fmt.Fprintln(w, rule)
	line := func(label, text string) { fmt.Fprintf(w, "%-16s %s\n", label+":", text) }
	line("Mesh", fmt.Sprintf("%d×%d interior points, %s scenario", r.Nx, r.Ny, r.Scenario))
	line("Steps", fmt.Sprintf("%d of Δt = %.6g (stable limit %.6g)", r.Steps, r.Dt, r.DtLimit))
	timeOf := "wall time"
	if r.Backend == lab.GPU {
		timeOf = "kernel time, CUDA events"
	}
	line("Time", fmt.Sprintf("%.4f s (%s)", r.Seconds, timeOf))
	line("Compute", fmt.Sprintf("%.2f GFLOP/s (55 + 34 flops a point and step)", r.GFLOPs))
	line("Mass Σh", fmt.Sprintf("%.12g → %.12g (boundary inflow %.6g)", r.Mass0, r.Mass, r.Inflow))
	line("Mass drift", fmt.Sprintf("%.3g relative", r.MassDrift))
	line("Sand fraction", fmt.Sprintf("%.6f to %.6f", r.SMin, r.SMax))
	if r.RelErrH != nil {
		line("vs CPU", fmt.Sprintf("relative error h %.3g, s %.3g", *r.RelErrH, *r.RelErrS))
	}
	fmt.Fprintln(w, rule)
}

func sedimentBench(stdout io.Writer, args []string, nx, ny int, seed uint64, warmup, reps int, shapes []gsed.Options, asJSON bool) (int, error) {
	d, err := gpu.Default()
	if err != nil {
		return 1, err
	}
	rep, err := gsed.Bench(d, nx, ny, seed, warmup, reps, shapes)
	if err != nil {
		return 1, err
	}
	rep.Command = strings.TrimSpace("stencil sediment " + strings.Join(args, " "))
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return 1, fmt.Errorf("write JSON: %w", err)
		}
		return 0, nil
	}
	if err := sediment.WriteTable(stdout, rep); err != nil {
		return 1, err
	}
	return 0, nil
}
