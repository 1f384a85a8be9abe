// Package benchfile is the JSON form of a bench of the lab's steps on a
// GPU: what `stencil bench -json` writes and what the figures and the
// notebooks read (figures/data/bench_h200.json). One Go type for both
// sides, so that a field cannot drift between writer and reader.
package benchfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"stencillab.dev/lab"
)

// File is one bench: the device, how it was run, the copies measured as
// yardsticks, and one result per kernel, grid and configuration.
type File struct {
	Device     string     `json:"device,omitempty"`      // the device's name, e.g. "NVIDIA H200"
	DeviceInfo *Device    `json:"device_info,omitempty"` // what the device reported
	Command    string     `json:"command,omitempty"`     // the command that wrote the file
	Date       string     `json:"date,omitempty"`        // when, RFC 3339
	Reps       int        `json:"reps,omitempty"`        // timed launches per kernel
	Warmup     int        `json:"warmup,omitempty"`      // untimed launches before them
	Seed       uint64     `json:"seed,omitempty"`        // seed of the random input
	Coeffs     lab.Coeffs `json:"coeffs"`                // the coefficients of the sweeps
	// Coeffs13 are the coefficients of the thirteen-point steps
	// (lab.Step3.Radius 2), when the bench timed any.
	Coeffs13 *lab.Coeffs13 `json:"coeffs13,omitempty"`
	Copies   []Copy        `json:"copy,omitempty"`          // the float4 copy of each N³ grid
	Interior []Copy        `json:"interior_copy,omitempty"` // the copy of each grid's interior only
	Results  []Run         `json:"results"`                 // the kernels
	Scaling  []Scale       `json:"scaling,omitempty"`       // the kernels split over several GPUs (stencil bench -gpus)
}

// Scale is one kernel run split over several GPUs of one host
// (`stencil bench -gpus 1,2,4`), and its efficiency against the same
// kernel on the fewest GPUs of the list, timed in the same process.
type Scale struct {
	Kernel  string `json:"kernel"`            // a step of the lab
	Label   string `json:"label,omitempty"`   // the configuration, when not the default
	N       int    `json:"n"`                 // the y and x sides; for weak scaling also the z side per GPU
	NZ      int    `json:"nz"`                // the z side of the grid: N, or N·GPUs for weak scaling
	Tile    int    `json:"tile,omitempty"`    // the step's tile; 0: its default
	Steps   int    `json:"steps,omitempty"`   // time steps each timed run advances (absent: 1)
	GPUs    int    `json:"gpus"`              // GPUs of the split
	Devices []int  `json:"devices"`           // their ordinals
	PY      int    `json:"py,omitempty"`      // GPUs along y for pencils (absent: z-slabs)
	Overlap string `json:"overlap,omitempty"` // the overlap variant asked for ("": the gpu backend's default)
	Weak    bool   `json:"weak,omitempty"`    // weak scaling: the grid grows with the GPUs
	// MedianMs is the median time of one run (Steps time steps) by the
	// backend's clock; MinMs the fastest; TimesMs every timed run.
	MedianMs float64   `json:"median_ms"`
	MinMs    float64   `json:"min_ms,omitempty"`
	TimesMs  []float64 `json:"times_ms,omitempty"`
	// PointsPerSec is interior points × time steps over the median time.
	PointsPerSec float64 `json:"points_per_second"`
	// BaseGPUs and BaseMs are the run the efficiency compares with: the
	// same kernel and N on the fewest GPUs of the bench (1 when the list
	// has it).
	BaseGPUs int     `json:"base_gpus"`
	BaseMs   float64 `json:"base_ms"`
	// Efficiency is, for strong scaling, BaseGPUs·BaseMs / (GPUs·MedianMs);
	// for weak scaling BaseMs / MedianMs.
	Efficiency float64 `json:"efficiency"`
	// MessagesPerStep and HaloBytesPerStep are what all GPUs sent each
	// other per time step, as the split counted them.
	MessagesPerStep  float64 `json:"messages_per_step,omitempty"`
	HaloBytesPerStep float64 `json:"halo_bytes_per_step,omitempty"`
	// RankMs is each GPU's compute, exchange and wait time in the
	// repetition of the median time, milliseconds.
	RankMs []lab.RankTime `json:"rank_ms,omitempty"`
	// Checked says how the output was checked: "bit for bit" against
	// the base run, or why it was not.
	Checked string `json:"check,omitempty"`
}

// EfficiencyAt returns the efficiency of a run of s's split that took ms
// against s's base run: BaseGPUs·BaseMs / (GPUs·ms) for strong scaling,
// BaseMs / ms for weak. At s.MedianMs it is s.Efficiency; at the slowest
// rank's compute time it is what the split would reach were its exchange
// free.
func (s Scale) EfficiencyAt(ms float64) float64 {
	if s.Weak {
		return s.BaseMs / ms
	}
	return float64(s.BaseGPUs) * s.BaseMs / (float64(s.GPUs) * ms)
}

// Check returns an error wrapping ErrInvalid when the scaling result
// cannot be used: no kernel, a side below 3, no GPU, a time or rate that
// is not positive, a negative efficiency.
func (s Scale) Check() error {
	pos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	switch {
	case s.Kernel == "":
		return fmt.Errorf("scaling: no kernel name: %w", ErrInvalid)
	case s.N < 3 || s.NZ < 3:
		return fmt.Errorf("scaling: kernel %s: n = %d, nz = %d: each must be at least 3: %w", s.Kernel, s.N, s.NZ, ErrInvalid)
	case s.GPUs < 1 || s.BaseGPUs < 1:
		return fmt.Errorf("scaling: kernel %s: %d GPUs against %d: each must be at least 1: %w", s.Kernel, s.GPUs, s.BaseGPUs, ErrInvalid)
	case !pos(s.MedianMs) || !pos(s.PointsPerSec) || !pos(s.BaseMs):
		return fmt.Errorf("scaling: kernel %s on %d GPUs: median_ms, points_per_second and base_ms must be positive (got %g, %g, %g): %w",
			s.Kernel, s.GPUs, s.MedianMs, s.PointsPerSec, s.BaseMs, ErrInvalid)
	case !(s.Efficiency >= 0) || math.IsInf(s.Efficiency, 0):
		return fmt.Errorf("scaling: kernel %s on %d GPUs: efficiency %g must be a non-negative number: %w", s.Kernel, s.GPUs, s.Efficiency, ErrInvalid)
	}
	return nil
}

// Device is what a bench's GPU reported of itself.
type Device struct {
	Name     string `json:"name"`
	Arch     string `json:"arch"`
	SMs      int    `json:"sms"`
	L2Bytes  int    `json:"l2_bytes"`
	MemBytes uint64 `json:"mem_bytes"`
	Driver   int    `json:"driver_version"`
}

// Copy is the measurement of a copy kernel on an N³ grid.
type Copy struct {
	N        int       `json:"n"`
	Bytes    float64   `json:"bytes"` // read + written
	MedianMs float64   `json:"median_ms"`
	MinMs    float64   `json:"min_ms"`
	GBps     float64   `json:"gbps"`
	Grid     [3]int    `json:"grid"`
	Block    [3]int    `json:"block"`
	TimesMs  []float64 `json:"times_ms"`
}

// Run is one kernel on one N×N×N grid of float32 in one configuration.
type Run struct {
	Kernel        string    `json:"kernel"`                       // a step of the lab (`stencil steps`)
	Label         string    `json:"label,omitempty"`              // the configuration, when not the default
	N             int       `json:"n"`                            // cube side
	Tile          int       `json:"tile,omitempty"`               // the step's tile; 0: its default
	TileShape     string    `json:"tile_shape,omitempty"`         // the tile as the study notes write it
	Planes        int       `json:"planes_per_block,omitempty"`   // z planes a block covers
	Defines       []string  `json:"defines,omitempty"`            // compile-time defines
	Grid          [3]int    `json:"grid,omitempty"`               // blocks
	Block         [3]int    `json:"block,omitempty"`              // threads per block
	SharedBytes   int       `json:"shared_bytes,omitempty"`       // shared memory per block
	Registers     int       `json:"registers,omitempty"`          // registers per thread
	LocalBytes    int       `json:"local_bytes,omitempty"`        // local memory per thread
	Target        string    `json:"target,omitempty"`             // NVRTC's target, e.g. sm_90
	CompileMs     float64   `json:"compile_ms,omitempty"`         // NVRTC compile time
	Steps         int       `json:"steps,omitempty"`              // time steps each timed run advances (absent: 1)
	MedianMs      float64   `json:"median_ms"`                    // median time of one run (Steps time steps), milliseconds
	MinMs         float64   `json:"min_ms,omitempty"`             // fastest sweep
	MaxMs         float64   `json:"max_ms,omitempty"`             // slowest sweep
	GBps          float64   `json:"gbps"`                         // effective: 8 bytes per interior point per time step, (N−2)³ points, over the median time, 10⁹ B/s
	GFlops        float64   `json:"gflops"`                       // 13·(N−2)³ operations per time step over the median time, 10⁹ OP/s
	CopyGBps      float64   `json:"copy_gbps"`                    // the float4 copy of N³ floats in the same run, 10⁹ B/s
	PctCopy       float64   `json:"pct_copy"`                     // GBps as a percentage of CopyGBps: above 100 when a pass does several time steps
	InteriorGBps  float64   `json:"interior_copy_gbps,omitempty"` // the interior copy in the same run
	PctInterior   float64   `json:"pct_interior_copy,omitempty"`  // GBps as a percentage of InteriorGBps
	CheckedPoints int       `json:"checked_points,omitempty"`     // points compared with the reference
	MaxAbsErr     *float64  `json:"max_abs_err,omitempty"`        // largest difference found
	TimesMs       []float64 `json:"times_ms,omitempty"`           // every timed sweep
}

// Pct returns PctCopy, or, where the file leaves it 0, GBps as a
// percentage of CopyGBps (0 without a copy).
func (r Run) Pct() float64 {
	if r.PctCopy == 0 && r.CopyGBps > 0 {
		return 100 * r.GBps / r.CopyGBps
	}
	return r.PctCopy
}

// ErrInvalid is wrapped by every error about a bench file that cannot be used.
var ErrInvalid = errors.New("invalid bench results")

// Read parses the output of `stencil bench -json`. It accepts three
// shapes: an object {"device": ..., "results": [...]}, a bare array of
// results, or a stream of result objects (one per line). Every result needs
// a kernel, n ≥ 3 and a positive median_ms, gbps and gflops.
func Read(r io.Reader) (*File, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("benchfile: reading bench results: %w", err)
	}
	data = bytes.TrimSpace(data)
	b := &File{}
	switch {
	case len(data) == 0:
		return nil, fmt.Errorf("benchfile: bench results are empty: %w", ErrInvalid)
	case data[0] == '[':
		if err := json.Unmarshal(data, &b.Results); err != nil {
			return nil, fmt.Errorf("benchfile: bench results array: %w: %w", err, ErrInvalid)
		}
	default:
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var raw map[string]json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("benchfile: bench results: %w: %w", err, ErrInvalid)
			}
			if _, ok := raw["results"]; ok {
				var set File
				if err := remarshal(raw, &set); err != nil {
					return nil, err
				}
				if len(b.Results) == 0 && b.Device == "" {
					// The first set keeps all it says of itself.
					results := b.Results
					*b = set
					b.Results = append(results, set.Results...)
					continue
				}
				if b.Device == "" {
					b.Device = set.Device
				}
				b.Results = append(b.Results, set.Results...)
				continue
			}
			var res Run
			if err := remarshal(raw, &res); err != nil {
				return nil, err
			}
			b.Results = append(b.Results, res)
		}
	}
	if len(b.Results) == 0 && len(b.Scaling) == 0 {
		return nil, fmt.Errorf("benchfile: bench file holds no results: %w", ErrInvalid)
	}
	for i, res := range b.Results {
		if err := res.Check(); err != nil {
			return nil, fmt.Errorf("benchfile: bench result %d: %w", i, err)
		}
	}
	for i, s := range b.Scaling {
		if err := s.Check(); err != nil {
			return nil, fmt.Errorf("benchfile: scaling result %d: %w", i, err)
		}
	}
	return b, nil
}

func remarshal(raw map[string]json.RawMessage, v any) error {
	buf, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(buf, v)
	}
	if err != nil {
		return fmt.Errorf("benchfile: bench results: %w: %w", err, ErrInvalid)
	}
	return nil
}

// Check returns an error wrapping ErrInvalid when the result cannot be
// used: no kernel, n below 3, a time, bandwidth or rate that is not
// positive, or a negative copy share.
func (r Run) Check() error {
	pos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	switch {
	case r.Kernel == "":
		return fmt.Errorf("no kernel name: %w", ErrInvalid)
	case r.N < 3:
		return fmt.Errorf("kernel %s: n = %d is below 3: %w", r.Kernel, r.N, ErrInvalid)
	case !pos(r.MedianMs) || !pos(r.GBps) || !pos(r.GFlops):
		return fmt.Errorf("kernel %s: median_ms, gbps and gflops must be positive (got %g, %g, %g): %w",
			r.Kernel, r.MedianMs, r.GBps, r.GFlops, ErrInvalid)
	case r.CopyGBps < 0 || r.PctCopy < 0 || math.IsNaN(r.CopyGBps) || math.IsNaN(r.PctCopy):
		return fmt.Errorf("kernel %s: copy_gbps and pct_copy must not be negative: %w", r.Kernel, ErrInvalid)
	}
	return nil
}

// TimeSteps returns the time steps a run advanced: Steps, or 1 where the
// file leaves it out.
func (r Run) TimeSteps() int { return max(r.Steps, 1) }

// PointsPerSecond returns the effective rate: interior points times time
// steps over the median time.
func (r Run) PointsPerSecond() float64 {
	in := float64(r.N-2) * float64(r.N-2) * float64(r.N-2)
	return in * float64(r.TimeSteps()) / (r.MedianMs * 1e-3)
}

// Load reads a bench file with Read.
func Load(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("benchfile: %w", err)
	}
	defer f.Close()
	return Read(f)
}
