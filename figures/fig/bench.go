package fig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// BenchResult is one measurement of `stencil bench -json`: one kernel on
// one N×N×N grid of float32. The JSON field names are the tags.
type BenchResult struct {
	Kernel   string  `json:"kernel"`         // step name: basic, tiled, coarsened, register_tiled, fast, …
	N        int     `json:"n"`              // cube side
	Tile     int     `json:"tile,omitempty"` // input tile dimension T; 0: the step's default
	MedianMs float64 `json:"median_ms"`      // median time of one sweep, milliseconds
	GBps     float64 `json:"gbps"`           // effective bandwidth: 2·4·N³ bytes (one read, one write per point) over the median time, 10⁹ B/s
	GFlops   float64 `json:"gflops"`         // 13·(N−2)³ operations over the median time, 10⁹ OP/s
	PctCopy  float64 `json:"pct_copy"`       // GBps as a percentage of CopyGBps
	CopyGBps float64 `json:"copy_gbps"`      // bandwidth of a device-to-device copy of N³ floats on the same GPU, 10⁹ B/s
}

// Bench is a set of measurements from one GPU.
type Bench struct {
	Device  string        `json:"device,omitempty"` // e.g. "NVIDIA H200"
	Results []BenchResult `json:"results"`
}

// ErrBench is wrapped by every error about a bench file that cannot be used.
var ErrBench = errors.New("invalid bench results")

// ReadBench parses the output of `stencil bench -json`. It accepts three
// shapes: an object {"device": ..., "results": [...]}, a bare array of
// results, or a stream of result objects (one per line). Every result needs
// a kernel, n ≥ 3 and a positive median_ms, gbps and gflops.
func ReadBench(r io.Reader) (*Bench, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("fig: reading bench results: %w", err)
	}
	data = bytes.TrimSpace(data)
	b := &Bench{}
	switch {
	case len(data) == 0:
		return nil, fmt.Errorf("fig: bench results are empty: %w", ErrBench)
	case data[0] == '[':
		if err := json.Unmarshal(data, &b.Results); err != nil {
			return nil, fmt.Errorf("fig: bench results array: %w: %w", err, ErrBench)
		}
	default:
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var raw map[string]json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("fig: bench results: %w: %w", err, ErrBench)
			}
			if _, ok := raw["results"]; ok {
				var set Bench
				if err := remarshal(raw, &set); err != nil {
					return nil, err
				}
				if b.Device == "" {
					b.Device = set.Device
				}
				b.Results = append(b.Results, set.Results...)
				continue
			}
			var res BenchResult
			if err := remarshal(raw, &res); err != nil {
				return nil, err
			}
			b.Results = append(b.Results, res)
		}
	}
	if len(b.Results) == 0 {
		return nil, fmt.Errorf("fig: bench file holds no results: %w", ErrBench)
	}
	for i, res := range b.Results {
		if err := res.check(); err != nil {
			return nil, fmt.Errorf("fig: bench result %d: %w", i, err)
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
		return fmt.Errorf("fig: bench results: %w: %w", err, ErrBench)
	}
	return nil
}

func (r BenchResult) check() error {
	pos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	switch {
	case r.Kernel == "":
		return fmt.Errorf("no kernel name: %w", ErrBench)
	case r.N < 3:
		return fmt.Errorf("kernel %s: n = %d is below 3: %w", r.Kernel, r.N, ErrBench)
	case !pos(r.MedianMs) || !pos(r.GBps) || !pos(r.GFlops):
		return fmt.Errorf("kernel %s: median_ms, gbps and gflops must be positive (got %g, %g, %g): %w",
			r.Kernel, r.MedianMs, r.GBps, r.GFlops, ErrBench)
	case r.CopyGBps < 0 || r.PctCopy < 0 || math.IsNaN(r.CopyGBps) || math.IsNaN(r.PctCopy):
		return fmt.Errorf("kernel %s: copy_gbps and pct_copy must not be negative: %w", r.Kernel, ErrBench)
	}
	return nil
}

// LoadBench reads a bench file with ReadBench.
func LoadBench(path string) (*Bench, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fig: bench results: %w", err)
	}
	defer f.Close()
	return ReadBench(f)
}
