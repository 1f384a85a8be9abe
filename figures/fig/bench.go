package fig

import (
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"stencillab.dev/lab"
	"stencillab.dev/lab/benchfile"
)

// BenchResult is one measurement of `stencil bench -json`: one kernel on
// one N×N×N grid of float32 (benchfile.Run, the one type of the writer and
// the reader).
type BenchResult = benchfile.Run

// Bench is a set of measurements from one GPU (benchfile.File).
type Bench = benchfile.File

// ErrBench is wrapped by every error about a bench file that cannot be used.
var ErrBench = benchfile.ErrInvalid

// ReadBench parses the output of `stencil bench -json` (benchfile.Read).
func ReadBench(r io.Reader) (*Bench, error) { return benchfile.Read(r) }

// LoadBench reads a bench file with ReadBench.
func LoadBench(path string) (*Bench, error) { return benchfile.Load(path) }

// Datasheet figures of an NVIDIA H200 SXM, for the model chart and the
// compute roof: HBM3e bandwidth and FP32 peak without tensor cores.
const (
	H200BandwidthGBps = 4800  // 4.8 TB/s
	H200PeakGFlops    = 67000 // 67 TFLOP/s FP32
)

// modelTile is a kernel of the chapter's cost model at the tile the model
// chart assumes.
type modelTile struct {
	kernel string
	tile   int
}

// modelTiles returns the kernels of the model at their default tiles: the
// slides' T = 8 for the basic block edge and the tiled kernel, the
// largest T that 1024 threads allow, 32, for the z-marching kernels.
func modelTiles() []modelTile {
	var mts []modelTile
	for _, s := range lab.Steps3() {
		if lab.InModel(s) {
			mts = append(mts, modelTile{s.Name, s.DefaultTile})
		}
	}
	return mts
}

// movedIntensity is the chapter's count of operations over the bytes a
// kernel moves through DRAM per output, loads and stores, for a block far
// from the faces at tile T: 13/32 for basic, tending to 13/8 for the
// tiled kernels.
func movedIntensity(kernel string, tile int) (float64, error) {
	c, err := lab.Cost(kernel, tile)
	if err != nil {
		return 0, err
	}
	return float64(c.Ops) / float64(lab.Float32Bytes*(c.Loads+c.Outputs)), nil
}

// ModelBench is what the chapter's model predicts on an H200: each kernel
// at its tile of modelTiles moves its loads and stores through DRAM at the
// datasheet bandwidth, with no cache. Effective bandwidth counts the ideal
// 8 bytes per point, as `stencil bench` does.
func ModelBench(n int) (*Bench, error) {
	if n < 3 {
		return nil, fmt.Errorf("fig: model bench on N = %d: need N ≥ 3: %w", n, ErrBench)
	}
	b := &Bench{Device: "model of an NVIDIA H200 (datasheet 4.8 TB/s), not measured"}
	interior := float64(n-2) * float64(n-2) * float64(n-2)
	for _, mt := range modelTiles() {
		I, err := movedIntensity(mt.kernel, mt.tile)
		if err != nil {
			return nil, fmt.Errorf("fig: model bench: %w", err)
		}
		gflops := math.Min(H200PeakGFlops, I*H200BandwidthGBps)
		sec := lab.Flops7 * interior / (gflops * 1e9)
		// The same accounting as stencil bench: 8 bytes per interior point.
		gbps := 2 * lab.Float32Bytes * interior / sec / 1e9
		b.Results = append(b.Results, BenchResult{
			Kernel: mt.kernel, N: n, Tile: mt.tile, MedianMs: sec * 1e3, GBps: gbps, GFlops: gflops,
			PctCopy: 100 * gbps / H200BandwidthGBps, CopyGBps: H200BandwidthGBps,
		})
	}
	return b, nil
}

// largestN keeps, for each kernel, the result on the largest grid, in the
// order the kernels first appear.
func largestN(rs []BenchResult) []BenchResult {
	best := map[string]int{}
	var out []BenchResult
	for _, r := range rs {
		i, ok := best[r.Kernel]
		switch {
		case !ok:
			best[r.Kernel] = len(out)
			out = append(out, r)
		case r.N > out[i].N:
			out[i] = r
		}
	}
	return out
}

// Bandwidth draws the GPU measurements of `stencil bench -json` on the
// largest grid each kernel was measured on: BandwidthWith with no options.
// A nil b draws ModelBench(512), marked "model, not measured".
func Bandwidth(b *Bench) (*Panels, error) {
	return BandwidthWith(b, BandwidthOptions{})
}

// DRAMTraffic is the DRAM traffic of a sweep measured by a profiler (ncu's
// dram__bytes_read.sum plus dram__bytes_write.sum over the interior
// points), in bytes per interior point, by step name.
type DRAMTraffic map[string]float64

// BandwidthOptions choose what BandwidthWith draws.
type BandwidthOptions struct {
	// N is the grid side whose results are drawn; 0 takes, for each
	// kernel, the largest grid it was measured on. Every chart names N.
	N int
	// DRAM, where it holds a kernel, places it on the roofline at its
	// measured DRAM intensity, 13 operations over its bytes per point,
	// instead of the chapter's count.
	DRAM DRAMTraffic
	// DRAMDevice is the card DRAM was measured on ("NVIDIA H100 80GB
	// HBM3"); the roofline's x label names it, and the chart's title names
	// both cards when it differs from the bench's.
	DRAMDevice string
}

// BandwidthWith draws the GPU measurements of `stencil bench -json`: (A)
// each kernel's effective bandwidth against a device-to-device copy, (B) a
// roofline, GFLOP/s against operations per byte moved, with the bandwidth
// roof of the copy and the FP32 peak. A kernel's intensity is its measured
// DRAM intensity where opt.DRAM has it, else the chapter's count at its
// tile (lab.Cost, loads and stores), and a note under the roofline says
// that the caches make the real DRAM intensity higher, which is why a
// point can sit above the roof; a kernel outside the chapter sits at the
// ideal 13/8, one read and one write per point. A nil b draws
// ModelBench(512), marked "model, not measured".
func BandwidthWith(b *Bench, opt BandwidthOptions) (*Panels, error) {
	model := b == nil
	if model {
		var err error
		if b, err = ModelBench(512); err != nil {
			return nil, err
		}
	}
	if len(b.Results) == 0 {
		return nil, fmt.Errorf("fig: bandwidth: no results: %w", ErrBench)
	}
	for i, r := range b.Results {
		if err := r.Check(); err != nil {
			return nil, fmt.Errorf("fig: bandwidth: result %d: %w", i, err)
		}
	}
	var rs []BenchResult
	if opt.N > 0 {
		for _, r := range b.Results {
			if r.N == opt.N {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			return nil, fmt.Errorf("fig: bandwidth: no results at N = %d: %w", opt.N, ErrBench)
		}
	} else {
		rs = largestN(b.Results)
	}
	copyBW := 0.0
	for _, r := range rs {
		copyBW = math.Max(copyBW, r.CopyGBps)
	}
	sizes := sizesOf(rs)
	a, err := bandwidthBars(rs, copyBW, model)
	if err != nil {
		return nil, err
	}
	a.Title.Text += ", " + sizes
	r, err := roofline(rs, copyBW, model || strings.Contains(b.Device, "H200"), opt.DRAM)
	if err != nil {
		return nil, err
	}
	r.Title.Text += ", " + sizes
	device := b.Device
	if device == "" {
		device = "the GPU"
	}
	title := "Measured on " + device
	if placed := dramPlaced(rs, opt.DRAM); placed && opt.DRAMDevice != "" {
		r.X.Label.Text = "OP per DRAM byte (" + shortCard(opt.DRAMDevice) + ")"
		if opt.DRAMDevice != b.Device {
			title = "Measured on " + device + "; DRAM bytes (B's x) on " + shortCard(opt.DRAMDevice)
		}
	}
	if model {
		title = "MODEL, NOT MEASURED: the chapter's traffic at H200 datasheet speed"
	}
	return &Panels{Title: title, Cols: 2, Items: []Drawer{a, r}}, nil
}

// dramPlaced reports whether the roofline places some result by measured
// DRAM traffic.
func dramPlaced(rs []BenchResult, dram DRAMTraffic) bool {
	for _, r := range rs {
		if _, byCount := rooflineX(r, dram); !byCount {
			if _, ok := dram[r.Kernel]; ok {
				return true
			}
		}
	}
	return false
}

// shortCard names a card by its first two words, "NVIDIA H100" for
// "NVIDIA H100 80GB HBM3".
func shortCard(device string) string {
	f := strings.Fields(device)
	if len(f) > 2 {
		f = f[:2]
	}
	return strings.Join(f, " ")
}

// sizesOf names the grid sides of results: "N = 512", or "N = 256 to 1024"
// when they differ.
func sizesOf(rs []BenchResult) string {
	lo, hi := rs[0].N, rs[0].N
	for _, r := range rs {
		lo, hi = min(lo, r.N), max(hi, r.N)
	}
	if lo == hi {
		return fmt.Sprintf("N = %d", lo)
	}
	return fmt.Sprintf("N = %d to %d", lo, hi)
}

func bandwidthBars(rs []BenchResult, copyBW float64, model bool) (*plot.Plot, error) {
	p := NewPlot("(A) effective bandwidth", "GB/s, 8 bytes per point", "")
	names := make([]string, len(rs))
	xmax := copyBW
	var o Overlay
	for i, r := range rs {
		y := float64(len(rs) - 1 - i)
		st, err := Style(r.Kernel)
		if err != nil {
			return nil, fmt.Errorf("fig: bandwidth: %w", err)
		}
		names[len(rs)-1-i] = st.Title
		if r.Tile > 0 {
			names[len(rs)-1-i] += fmt.Sprintf("\nT = %d", r.Tile)
		}
		o.Add(Rect(0, y-0.32, r.GBps, y+0.32).Filled(st.Color))
		pct := r.Pct()
		xmax = math.Max(xmax, r.GBps)
		text := fmt.Sprintf("%.0f (%.0f%%)", r.GBps, pct)
		if r.GBps > 0.45*math.Max(copyBW, r.GBps) {
			o.Add(Label(r.GBps-0.02*xmax, y, 8.5, text).Align(-1, -0.5).Colored(rgb(0xffffff)).Bold())
		} else {
			o.Add(Label(r.GBps+0.02*xmax, y, 8.5, text).Align(0, -0.5))
		}
	}
	if copyBW > 0 {
		what := "copy"
		if model {
			what = "datasheet"
		}
		o.Add(Line(Pt{copyBW, -0.6}, Pt{copyBW, float64(len(rs)) - 0.4}).Stroked(Ink, 1.2).Dashed())
		o.Add(Label(copyBW, float64(len(rs))-0.35, 8.5, fmt.Sprintf("%s %.0f GB/s", what, copyBW)).Align(-1, 0))
	}
	p.Add(plotter.NewGrid(), &o)
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(len(rs))-0.4+0.35
	p.X.Min, p.X.Max = 0, xmax*1.45
	p.X.Tick.Marker = thousands{}
	return p, nil
}

func roofline(rs []BenchResult, copyBW float64, h200 bool, dram DRAMTraffic) (*plot.Plot, error) {
	p := NewPlot("(B) roofline", "OP per byte moved", "GFLOP/s")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = plot.ConstantTicks{{Value: 0.1, Label: "0.1"}, {Value: 0.25, Label: "0.25"}, {Value: 0.5, Label: "0.5"},
		{Value: 1, Label: "1"}, {Value: 2, Label: "2"}, {Value: 4, Label: "4"}, {Value: 8, Label: "8"}, {Value: 16, Label: "16"}}
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 100, Label: "100"}, {Value: 300}, {Value: 1000, Label: "1000"}, {Value: 3000},
		{Value: 10000, Label: "10⁴"}, {Value: 30000}, {Value: 100000, Label: "10⁵"}, {Value: 300000}, {Value: 1e6, Label: "10⁶"}}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0.1, 20, 100, 1.2e6
	p.Add(plotter.NewGrid())
	var o Overlay
	peak := math.Inf(1)
	if h200 {
		peak = H200PeakGFlops
	}
	if copyBW > 0 {
		var roof plotter.XYs
		for i := 0; i <= 200; i++ {
			x := 0.1 * math.Pow(200, float64(i)/200)
			roof = append(roof, plotter.XY{X: x, Y: math.Min(peak, copyBW*x)})
		}
		l, err := plotter.NewLine(roof)
		if err != nil {
			return nil, fmt.Errorf("fig: roofline: %w", err)
		}
		l.LineStyle = lineStyle(Ink, 1.6, false)
		p.Add(l)
		o.Add(Label(0.12, copyBW*0.12*1.25, 8.5, fmt.Sprintf("%.0f GB/s", copyBW)).Align(0, 0).Rotated(math.Atan2(1, 1.1)))
	}
	if h200 {
		o.Add(Label(19, H200PeakGFlops*1.15, 8.5, "FP32 peak 67 TFLOP/s").Align(-1, 0))
	}
	ideal := float64(lab.Flops7) / (2 * lab.Float32Bytes)
	il, err := plotter.NewLine(plotter.XYs{{X: ideal, Y: 100}, {X: ideal, Y: 90000}})
	if err != nil {
		return nil, fmt.Errorf("fig: roofline: %w", err)
	}
	il.LineStyle = lineStyle(Muted, 0.8, true)
	p.Add(il)
	p.Legend.Add("13/8: read once, write once", il)
	counted := false // some kernel placed at the chapter's count
	for _, r := range rs {
		x, byCount := rooflineX(r, dram)
		counted = counted || byCount
		s, err := plotter.NewScatter(plotter.XYs{{X: x, Y: r.GFlops}})
		if err != nil {
			return nil, fmt.Errorf("fig: roofline: %w", err)
		}
		st, err := Style(r.Kernel)
		if err != nil {
			return nil, fmt.Errorf("fig: roofline: %w", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: 4.5, Shape: draw.CircleGlyph{}}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("%s: %.0f GFLOP/s", st.Title, r.GFlops), s)
	}
	if counted && copyBW > 0 {
		// The chapter counts every load as DRAM traffic; the caches serve
		// most of them, so the real DRAM intensity is higher (13/8 at best)
		// and a point at the count can sit above the copy's roof.
		o.Add(Label(19, 290, 7.5, "x: the chapter's count, loads and the store;").Align(-1, 0).Colored(Muted))
		o.Add(Label(19, 195, 7.5, "caches make the real DRAM intensity higher,").Align(-1, 0).Colored(Muted))
		o.Add(Label(19, 130, 7.5, "so a point can sit above the roof").Align(-1, 0).Colored(Muted))
	}
	p.Add(&o)
	p.Legend.Left, p.Legend.Top = true, true
	p.Legend.XOffs, p.Legend.YOffs = 4, -4
	return p, nil
}

// rooflineX is where the roofline places a result: 13 operations over
// its measured DRAM bytes per point where dram has them, else the
// chapter's count at its tile (byCount true), else, for a kernel outside
// the chapter, the ideal 13/8.
func rooflineX(r BenchResult, dram DRAMTraffic) (x float64, byCount bool) {
	if bytes, ok := dram[r.Kernel]; ok && bytes > 0 {
		return float64(lab.Flops7) / bytes, false
	}
	ideal := float64(lab.Flops7) / (2 * lab.Float32Bytes)
	x, err := movedIntensity(r.Kernel, max(r.Tile, 3))
	if r.Tile == 0 || err != nil {
		x = ideal
		for _, mt := range modelTiles() {
			if mt.kernel == r.Kernel {
				x, _ = movedIntensity(mt.kernel, mt.tile)
			}
		}
	}
	return x, x != ideal
}

// thousands labels a linear axis in steps of 1000 (or 2000 above 8000).
type thousands struct{}

// Ticks implements plot.Ticker.
func (thousands) Ticks(min, max float64) []plot.Tick {
	step := 1000.0
	if max-min > 8000 {
		step = 2000
	}
	var ts []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
	}
	return ts
}
