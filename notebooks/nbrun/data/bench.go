package data

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
	"stencillab.dev/lab"
)

// BenchFile is the repository's record of the 3D steps timed on an NVIDIA
// H200 with `stencil bench -json`, relative to the repository's root.
const BenchFile = "figures/data/bench_h200.json"

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
