package nbrun

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"stencillab.dev/figures/fig"
	"stencillab.dev/gpu"
	"stencillab.dev/gpu/bench"
	"stencillab.dev/lab"
)

// BenchFile is the repository's record of the 3D steps timed on an NVIDIA
// H200 with `stencil bench -json`, relative to the repository's root.
const BenchFile = "figures/data/bench_h200.json"

// MaxBenchN bounds the grid of a live benchmark from a notebook.
const MaxBenchN = 512

// Bench times every 3D sweep of gpu.Sweeps3() at its default tile on an
// n×n×n grid on the GPU, reps timed launches each after two untimed ones,
// next to the float4 copy of the same grid, through `stencil bench`'s engine (gpu/bench):
// effective bandwidth counts 8 bytes per interior point, and each output
// is checked against lab.SevenPoint on three planes. Without a GPU the
// error wraps gpu.ErrNoGPU.
func Bench(n, reps int) (*fig.Bench, error) {
	if n < 3 || n > MaxBenchN {
		return nil, fmt.Errorf("nbrun: bench: grid side %d must be 3 to %d: %w", n, MaxBenchN, lab.ErrSize)
	}
	if reps < 1 || reps > lab.MaxReps {
		return nil, fmt.Errorf("nbrun: bench: %d timed launches; need 1 to %d: %w", reps, lab.MaxReps, lab.ErrSize)
	}
	d, err := gpu.Default()
	if err != nil {
		return nil, fmt.Errorf("nbrun: bench: %w", err)
	}
	// The steps resolved once here, at the notebook's edge; the loop is
	// `stencil bench`'s (gpu/bench).
	var configs []bench.Config
	for _, step := range gpu.Sweeps3() {
		p, err := lab.Resolve(step, lab.GPU, lab.Config{})
		if err != nil {
			return nil, fmt.Errorf("nbrun: bench: %w", err)
		}
		configs = append(configs, bench.Config{Label: step, Plan: p})
	}
	e, err := bench.Compile(d, configs, 1)
	if err != nil {
		return nil, fmt.Errorf("nbrun: bench: %w", err)
	}
	res, err := e.Run(bench.Spec{Sizes: []int{n}, Steps: 1, Warmup: 2, Reps: reps,
		Seed: func(int) uint64 { return Seed }, Check: true, Tolerance: Tolerance})
	if err != nil {
		return nil, fmt.Errorf("nbrun: bench: %w", err)
	}
	b := &fig.Bench{Device: d.Props().Name}
	for _, r := range res.Runs {
		b.Results = append(b.Results, fig.BenchResult{Kernel: r.Kernel, N: n, Tile: r.Tile, MedianMs: r.MedianMs,
			GBps: r.GBps, GFlops: r.GFlops, PctCopy: r.PctCopy, CopyGBps: r.CopyGBps})
	}
	return b, nil
}

// RepoRoot returns the root of the repository, the first folder at or
// above the working directory whose go.mod declares module stencillab.dev.
// A notebook runs in notebooks/, a test in its package's folder.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("nbrun: repository root: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && declaresModule(string(b), "stencillab.dev") {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("nbrun: no go.mod of module stencillab.dev at or above the working directory: %w", fs.ErrNotExist)
		}
		dir = up
	}
}

func declaresModule(gomod, module string) bool {
	for _, line := range strings.Split(gomod, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == module {
			return true
		}
	}
	return false
}

// MeasuredBench reads BenchFile. While the file is not in the repository
// the error wraps fs.ErrNotExist.
func MeasuredBench() (*fig.Bench, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	b, err := fig.LoadBench(filepath.Join(root, filepath.FromSlash(BenchFile)))
	if err != nil {
		return nil, fmt.Errorf("nbrun: %s: %w", BenchFile, err)
	}
	return b, nil
}

// DRAMFile is where the DRAM traffic a profiler measured is recorded
// (fig.DRAMFile's format, with the card in its device field and its name),
// relative to the repository's root. It was measured on an H100 while the
// bench file's times are an H200's: two cards of one architecture (sm_90),
// and the notebook names the file, so the card, it draws from.
const DRAMFile = "figures/data/dram_h100.json"

// MeasuredDRAM reads DRAMFile at grid side n, for the roofline
// (fig.BandwidthOptions.DRAM). While the file is not in the repository the
// error wraps fs.ErrNotExist.
func MeasuredDRAM(n int) (fig.DRAMTraffic, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	d, err := fig.LoadDRAMTraffic(filepath.Join(root, filepath.FromSlash(DRAMFile)), n)
	if err != nil {
		return nil, fmt.Errorf("nbrun: %s: %w", DRAMFile, err)
	}
	return d, nil
}

// HopperRun is one kernel timed on an NVIDIA H200 at N = 512: the median
// time of its launches and its effective bandwidth as a share of the float4
// copy kernel's, 8 bytes per point.
type HopperRun struct {
	Kernel  string  // step name
	Config  string  // tile or block, e.g. "T = 8"
	Ms      float64 // median milliseconds; 0 where only the share was recorded
	PctCopy float64 // share of the copy kernel's bandwidth, percent
}

// RecordedRuns are the H200 runs notebook 07 compares with the model: the
// bench file's at N = 512 (FromBench). Only what the bench file holds is
// shown; a run recorded nowhere else has no place here.
func RecordedRuns(b *fig.Bench) []HopperRun {
	return FromBench(b, 512)
}

// ModelShare is the share of the copy bandwidth the chapter's traffic
// model predicts for a kernel at tile T on an N×N×N grid, with no cache:
// the ideal 8 bytes per interior point over the bytes the kernel loads and
// stores by lab.CostN. It is 25 % for basic whatever N (7 loads and 1
// store per point) and approaches 100 % for the tiled kernels as T grows.
func ModelShare(kernel string, n, tile int) (float64, error) {
	if n < 3 || float64(n)*float64(n)*float64(n) > lab.MaxPoints {
		return 0, fmt.Errorf("nbrun: model share: grid side %d must be at least 3 and N³ at most %d points: %w", n, int64(lab.MaxPoints), lab.ErrSize)
	}
	c, err := lab.CostN(kernel, n, tile)
	if err != nil {
		return 0, fmt.Errorf("nbrun: model share: %w", err)
	}
	moved := float64(c.Loads + c.Stores)
	if moved == 0 {
		return 0, fmt.Errorf("nbrun: model share: %s at N = %d moves nothing", kernel, n)
	}
	return 100 * 2 * float64(c.Outputs) / moved, nil
}

// CompareModel formats a table of the model's share of copy bandwidth
// against the measured share for each run, at N = 512, the size the
// runs were timed at.
func CompareModel(runs []HopperRun) (string, error) {
	const n = 512
	if len(runs) == 0 {
		return "", fmt.Errorf("nbrun: compare with the model: no runs (is the bench file empty at N = %d?)", n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-15s %-18s %9s %10s %10s\n", "kernel", "launch", "time ms", "model", "measured")
	for _, r := range runs {
		model := "–"
		if tile, ok := tileOf(r); ok {
			m, err := ModelShare(r.Kernel, n, tile)
			if err != nil {
				return "", err
			}
			model = fmt.Sprintf("%.0f %%", m)
		}
		ms := "–"
		if r.Ms > 0 {
			ms = fmt.Sprintf("%.3f", r.Ms)
		}
		fmt.Fprintf(&b, "%-15s %-18s %9s %10s %8.0f %%\n", r.Kernel, r.Config, ms, model, r.PctCopy)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// tileOf reads the tile of a run's configuration for the model: T = t,
// or t×t×t blocks of basic. Other block shapes have no tile in the model;
// basic's traffic does not depend on its block anyway.
func tileOf(r HopperRun) (int, bool) {
	var t int
	if _, err := fmt.Sscanf(r.Config, "T = %d", &t); err == nil {
		return t, true
	}
	if s, err := lab.LookupStep3(r.Kernel); err == nil && s.BlockShape {
		return s.DefaultTile, true
	}
	return 0, false
}

// FromBench turns measured results at one grid side into HopperRun values,
// one per kernel in the order of gpu.Steps3(), for CompareModel. Kernels
// not measured at n are left out; a nil bench gives none.
func FromBench(b *fig.Bench, n int) []HopperRun {
	var runs []HopperRun
	if b == nil {
		return nil
	}
	for _, step := range gpu.Steps3() {
		for _, r := range b.Results {
			if r.Kernel != step || r.N != n {
				continue
			}
			tile := r.Tile
			if tile == 0 {
				tile = gpu.DefaultTile(step)
			}
			s, _ := lab.LookupStep3(step)
			cfg := fmt.Sprintf("T = %d", tile)
			switch {
			case s.BlockShape:
				cfg = fmt.Sprintf("%d×%d×%d blocks", tile, tile, tile)
			case tile == 0: // chosen per grid by the launcher
				cfg = "2.5D, z-marching"
			case !lab.InModel(s):
				cfg = fmt.Sprintf("%d %s", tile, s.TileName)
			}
			runs = append(runs, HopperRun{Kernel: step, Config: cfg, Ms: r.MedianMs, PctCopy: math.Round(r.Pct()*10) / 10})
			break
		}
	}
	return runs
}

// IsMissing reports whether err says that a file is not there.
func IsMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
