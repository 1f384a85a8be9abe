// Command ebisucheck gates the runs of EBISU (the ICS'23 temporal blocker,
// vendored under bench/peers/ebisu) on the lab's own CPU reference, and
// writes the comparison of EBISU with the lab's steps as one JSON file a
// card. bench/peers-gpu.sh runs it on the GPU machine:
//
//	ebisucheck ref -n 512 -steps 8,24 -dir W
//	    writes W/in_512.f32 (the input EBISU reads through EBISU_INPUT) and
//	    W/ref7_512_T.f32, lab.Advance of lab.SevenPoint[float32] over T
//	    steps with EBISU's coefficients, for each T (-stencil 13:
//	    lab.Advance13, W/ref13_512_T.f32);
//	ebisucheck cmp -n 512 -steps 8 -ref W/ref7_512_8.f32 -got OUT -log LOG -variant V -o runs.jsonl
//	    compares EBISU's output OUT with the reference and appends one JSON
//	    record, EBISU's own timing (its EBISU_RESULT line in LOG) and the
//	    verdict, to runs.jsonl;
//	ebisucheck report -lab a.json,b.json -runs runs.jsonl -o docs/peers_h200.json
//	    writes the card's file: the lab's runs, EBISU's runs and a table of
//	    one row per grid and step count.
//
// EBISU updates every point of the grid and clamps its reads at the faces
// (a point outside is its nearest face point); the lab keeps the boundary
// fixed. After T steps of radius r the two agree on the points at least
// r·T from every face, and only those are compared: the comparison region
// of EBISU's own check. Every output point must be finite. The tolerance
// is the lab's bench's: 1e-5·T·max(1, largest |reference|), since float32
// rounding grows with the values, which EBISU's coefficients (centre
// −1.67) multiply by up to 2.65 a step.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"stencillab.dev/lab"
	"stencillab.dev/lab/benchfile"
)

// Tolerance is the lab's bench's tolerance per time step, relative to the
// largest reference value (at least 1).
const Tolerance = 1e-5

// maxN bounds the grid side: a 2048³ float32 grid is 32 GiB.
const maxN = 2048

// coeffs7 returns EBISU's 3d7pt coefficients (3dstencil/3d7pt/config.cuh)
// in the lab's mapping: c0 centre, c1/c2 x∓1 (west 0.162, east 0.161),
// c3/c4 y∓1 (south 0.164, north 0.163), c5/c6 z∓1 (bottom 0.166, top
// 0.165), each the float32 value EBISU's kernel multiplies by.
func coeffs7() lab.Coeffs {
	f := func(x float32) float64 { return float64(x) }
	return lab.Coeffs{f(-1.67), f(0.162), f(0.161), f(0.164), f(0.163), f(0.166), f(0.165)}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ebisucheck ref|cmp|report [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "ref":
		err = cmdRef(os.Args[2:])
	case "cmp":
		err = cmdCmp(os.Args[2:])
	case "report":
		err = cmdReport(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (want ref, cmp or report)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ebisucheck:", err)
		os.Exit(1)
	}
}

func parseSteps(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || t < 1 || t > lab.MaxSteps {
			return nil, fmt.Errorf("-steps %q: each must be an integer from 1 to %d", s, lab.MaxSteps)
		}
		out = append(out, t)
	}
	sort.Ints(out)
	return out, nil
}

func checkN(n int) error {
	if n < 8 || n > maxN {
		return fmt.Errorf("-n %d: need 8 ≤ N ≤ %d", n, maxN)
	}
	return nil
}

// InputPath, RefPath name the files of ref in dir.
func InputPath(dir string, n int) string { return filepath.Join(dir, fmt.Sprintf("in_%d.f32", n)) }

// RefPath is the reference of stencil (7 or 13) at N after steps steps.
func RefPath(dir string, stencil, n, steps int) string {
	return filepath.Join(dir, fmt.Sprintf("ref%d_%d_%d.f32", stencil, n, steps))
}

// Input returns the N³ input: uniform in [0, 1), as EBISU's own
// rand()/RAND_MAX, from a fixed seed.
func Input(n int, seed uint64) (*lab.Grid3[float32], error) {
	g, err := lab.NewCube[float32](n)
	if err != nil {
		return nil, err
	}
	// A 64-bit linear congruential generator per plane, so that the
	// planes fill in parallel and the values do not depend on the cores.
	parallel(n, func(i int) {
		x := seed*0x9E3779B97F4A7C15 + uint64(i)*0xD1B54A32D192ED03 + 1
		p := g.Data[i*n*n : (i+1)*n*n]
		for k := range p {
			x = x*6364136223846793005 + 1442695040888963407
			p[k] = float32(x>>40) / float32(1<<24)
		}
	})
	return g, nil
}

func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	w := runtime.GOMAXPROCS(0)
	for t := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := t; i < n; i += w {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// coeffs13 returns EBISU's 3d13pt coefficients (3dstencil/3d13pt/config.cuh)
// in the lab's order (lab.Coeffs13): centre −0.996, every other point
// 0.083, each the float32 value EBISU's kernel multiplies by.
func coeffs13() lab.Coeffs13 {
	var c lab.Coeffs13
	c[0] = float64(float32(-0.996))
	for i := 1; i < len(c); i++ {
		c[i] = float64(float32(0.083))
	}
	return c
}

func cmdRef(args []string) error {
	fs := flag.NewFlagSet("ebisucheck ref", flag.ContinueOnError)
	n := fs.Int("n", 512, "grid side N")
	stepsFlag := fs.String("steps", "8,24", "time steps, comma-separated")
	seed := fs.Uint64("seed", 1, "seed of the input")
	dir := fs.String("dir", ".", "folder for the input and the references")
	writeIn := fs.Bool("input", true, "write the input too (false where another ref of the same N and seed writes it)")
	stencil := fs.Int("stencil", 7, "7 (3d7pt, lab.Advance of lab.SevenPoint) or 13 (3d13pt, lab.Advance13)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkN(*n); err != nil {
		return err
	}
	steps, err := parseSteps(*stepsFlag)
	if err != nil {
		return err
	}
	var advance func(dst, src *lab.Grid3[float32], steps int) error
	switch *stencil {
	case 7:
		advance = func(dst, src *lab.Grid3[float32], steps int) error {
			return lab.Advance(lab.SevenPoint[float32], dst, src, coeffs7(), steps)
		}
	case 13:
		advance = func(dst, src *lab.Grid3[float32], steps int) error {
			return lab.Advance13(dst, src, coeffs13(), steps)
		}
	default:
		return fmt.Errorf("-stencil %d: want 7 or 13", *stencil)
	}
	start := time.Now()
	in, err := Input(*n, *seed)
	if err != nil {
		return err
	}
	if *writeIn {
		if err := writeF32(InputPath(*dir, *n), in.Data); err != nil {
			return err
		}
	}
	cur, done := in, 0
	for _, t := range steps {
		next := cur.Clone()
		if t > done {
			if err := advance(next, cur, t-done); err != nil {
				return fmt.Errorf("reference of %d steps at N = %d: %w", t, *n, err)
			}
		}
		if err := writeF32(RefPath(*dir, *stencil, *n, t), next.Data); err != nil {
			return err
		}
		cur, done = next, t
	}
	fmt.Printf("ebisucheck ref: stencil %d, N = %d, steps %v in %.1f s\n", *stencil, *n, steps, time.Since(start).Seconds())
	return nil
}

func writeF32(path string, v []float32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<22)
	if err := binary.Write(w, binary.LittleEndian, v); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

func readF32(path string, n int) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v := make([]float32, n)
	if err := binary.Read(bufio.NewReaderSize(f, 1<<22), binary.LittleEndian, v); err != nil {
		return nil, fmt.Errorf("read %d floats from %s: %w", n, path, err)
	}
	return v, nil
}

// Gate is the verdict on one output.
type Gate struct {
	Reference string  `json:"reference"`      // what it was compared with
	Region    [2]int  `json:"region"`         // compared indices lo ≤ i, j, k < hi on each axis
	Points    int     `json:"points"`         // points compared
	MaxAbsErr float64 `json:"max_abs_err"`    // largest |EBISU − reference| there (+Inf for a NaN)
	Scale     float64 `json:"scale"`          // largest finite |reference| there
	Tol       float64 `json:"tolerance"`      // 1e-5·steps·max(1, scale)
	NonFinite int     `json:"non_finite"`     // output points, anywhere, that are NaN or ±Inf
	Pass      bool    `json:"pass"`           // MaxAbsErr ≤ Tol and NonFinite = 0
	Worst     [3]int  `json:"worst_at"`       // (z, y, x) of MaxAbsErr
	WorstGot  float64 `json:"worst_ebisu"`    // EBISU's value there
	WorstWant float64 `json:"worst_expected"` // the reference there
}

// Compare gates got against want on the N³ grid: the points at least lo
// from every face, every output point finite.
func Compare(got, want []float32, n, lo, steps int) Gate {
	hi := n - lo
	g := Gate{Region: [2]int{lo, hi}}
	if hi <= lo {
		return g
	}
	g.Points = (hi - lo) * (hi - lo) * (hi - lo)
	for _, x := range got {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			g.NonFinite++
		}
	}
	for i := lo; i < hi; i++ {
		for j := lo; j < hi; j++ {
			o := (i*n + j) * n
			for k := lo; k < hi; k++ {
				w := float64(want[o+k])
				if a := math.Abs(w); a > g.Scale && !math.IsInf(a, 0) {
					g.Scale = a
				}
				d := math.Abs(float64(got[o+k]) - w)
				if math.IsNaN(d) {
					d = math.Inf(1)
				}
				if d > g.MaxAbsErr || (d == g.MaxAbsErr && g.Worst == [3]int{}) {
					g.MaxAbsErr, g.Worst = d, [3]int{i, j, k}
					g.WorstGot, g.WorstWant = float64(got[o+k]), w
				}
			}
		}
	}
	g.Tol = Tolerance * float64(steps) * max(1, g.Scale)
	g.Pass = g.NonFinite == 0 && g.MaxAbsErr <= g.Tol
	return g
}

// Record is one EBISU run: its configuration, its timing and the gate.
type Record struct {
	Stencil      string    `json:"stencil"` // 3d7pt or 3d13pt
	Variant      string    `json:"variant"` // the build (depth, tile, items per thread)
	L2           string    `json:"l2"`      // the L2 setting asked for
	N            int       `json:"n"`
	Steps        int       `json:"steps"`
	Status       string    `json:"status"` // ok, wrong, or why it did not run
	Depth        int       `json:"depth,omitempty"`
	TileX        int       `json:"tile_x,omitempty"`
	TileY        int       `json:"tile_y,omitempty"`
	IPT          int       `json:"items_per_thread,omitempty"`
	Block        int       `json:"block,omitempty"`
	Grid         [3]int    `json:"grid,omitempty"`
	BlocksPerSM  int       `json:"blocks_per_sm,omitempty"`
	SharedBytes  int       `json:"shared_bytes,omitempty"`
	L2Window     int64     `json:"l2_window_bytes,omitempty"`
	L2SetAside   int64     `json:"l2_setaside_bytes,omitempty"`
	Launches     int       `json:"launches,omitempty"`
	MedianMs     float64   `json:"median_ms,omitempty"`
	MinMs        float64   `json:"min_ms,omitempty"`
	TimesMs      []float64 `json:"times_ms,omitempty"`
	PointsPerSec float64   `json:"points_per_second,omitempty"` // (N−2)³·steps over the median
	Gate         *Gate     `json:"gate,omitempty"`
}

// ParseResult reads the EBISU_RESULT line that the patched j3d.cu prints.
func ParseResult(log string, r *Record) bool {
	for _, line := range strings.Split(log, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "EBISU_RESULT ")
		if !ok {
			continue
		}
		for _, kv := range strings.Fields(rest) {
			k, v, _ := strings.Cut(kv, "=")
			i, _ := strconv.Atoi(v)
			i64, _ := strconv.ParseInt(v, 10, 64)
			f, _ := strconv.ParseFloat(v, 64)
			switch k {
			case "depth":
				r.Depth = i
			case "tile_x":
				r.TileX = i
			case "tile_y":
				r.TileY = i
			case "ipt":
				r.IPT = i
			case "block":
				r.Block = i
			case "grid":
				for m, s := range strings.SplitN(v, ",", 3) {
					r.Grid[m], _ = strconv.Atoi(s)
				}
			case "blocks_per_sm":
				r.BlocksPerSM = i
			case "shared_bytes":
				r.SharedBytes = i
			case "l2_window_bytes":
				r.L2Window = i64
			case "l2_setaside_bytes":
				r.L2SetAside = i64
			case "launches":
				r.Launches = i
			case "median_ms":
				r.MedianMs = f
			case "min_ms":
				r.MinMs = f
			case "times_ms":
				for _, s := range strings.Split(v, ",") {
					if t, err := strconv.ParseFloat(s, 64); err == nil {
						r.TimesMs = append(r.TimesMs, t)
					}
				}
			}
		}
		return r.MedianMs > 0
	}
	return false
}

func cmdCmp(args []string) error {
	fs := flag.NewFlagSet("ebisucheck cmp", flag.ContinueOnError)
	n := fs.Int("n", 512, "grid side N")
	steps := fs.Int("steps", 8, "time steps")
	stencil := fs.Int("stencil", 7, "7 or 13")
	ref := fs.String("ref", "", "the reference (ebisucheck ref)")
	got := fs.String("got", "", "EBISU's output (EBISU_DUMP)")
	logf := fs.String("log", "", "EBISU's output log")
	variant := fs.String("variant", "", "the build's name")
	l2 := fs.String("l2", "artifact", "the L2 setting's name")
	out := fs.String("o", "runs.jsonl", "append the record here")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkN(*n); err != nil {
		return err
	}
	if *stencil != 7 && *stencil != 13 {
		return fmt.Errorf("-stencil %d: want 7 or 13", *stencil)
	}
	r := Record{Stencil: fmt.Sprintf("3d%dpt", *stencil), Variant: *variant, L2: *l2, N: *n, Steps: *steps}
	logText, _ := os.ReadFile(*logf)
	switch {
	case !ParseResult(string(logText), &r):
		r.Status = "did not run: " + lastLine(string(logText))
	case r.Depth < 1 || *steps%r.Depth != 0:
		r.Status = fmt.Sprintf("depth %d does not divide %d steps", r.Depth, *steps)
	default:
		pts := float64(*n-2) * float64(*n-2) * float64(*n-2)
		r.PointsPerSec = pts * float64(*steps) / (r.MedianMs * 1e-3)
		cells := *n * *n * *n
		g, err := readF32(*got, cells)
		if err != nil {
			r.Status = "no output: " + err.Error()
			break
		}
		w, err := readF32(*ref, cells)
		if err != nil {
			return err
		}
		radius := 1
		what := "lab.Advance of lab.SevenPoint[float32]"
		if *stencil == 13 {
			radius, what = lab.Radius13, "lab.Advance13"
		}
		gate := Compare(g, w, *n, radius**steps, *steps)
		gate.Reference = what
		r.Gate = &gate
		r.Status = "ok"
		if !gate.Pass {
			r.Status = "wrong"
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	gs := ""
	if r.Gate != nil {
		gs = fmt.Sprintf(" max|err| %.3g tol %.3g scale %.3g", r.Gate.MaxAbsErr, r.Gate.Tol, r.Gate.Scale)
	}
	fmt.Printf("%s %-10s l2=%-8s N=%d steps=%d: %s %.1f Gpoints/s%s\n", r.Stencil, r.Variant, r.L2, r.N, r.Steps, r.Status, r.PointsPerSec/1e9, gs)
	return nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 200 {
		l = l[:200]
	}
	if l == "" {
		return "no output"
	}
	return l
}

// Row is one line of the table: the lab and EBISU's best gated run at one
// grid and step count, for the seven-point star (fast, temporal, 3d7pt)
// and the thirteen-point star (star13, temporal13, 3d13pt).
type Row struct {
	N                int     `json:"n"`
	Steps            int     `json:"steps"`
	Fast             float64 `json:"fast_points_per_second"`
	Temporal         float64 `json:"temporal_points_per_second"`
	EBISU            float64 `json:"ebisu_points_per_second"`      // best gated 3d7pt run, 0 when none passed
	EBISUVariant     string  `json:"ebisu_variant"`                // its build and L2 setting
	EBISUA100        float64 `json:"ebisu_a100_points_per_second"` // the artifact's own settings, 0 when they do not run
	TemporalOverBest float64 `json:"temporal_over_ebisu"`          // Temporal / EBISU, 0 when EBISU has none
	Star13           float64 `json:"star13_points_per_second,omitempty"`
	Temporal13       float64 `json:"temporal13_points_per_second,omitempty"`
	EBISU13          float64 `json:"ebisu13_points_per_second,omitempty"` // best gated 3d13pt run
	EBISU13Variant   string  `json:"ebisu13_variant,omitempty"`
	Lab13OverEBISU13 float64 `json:"lab13_over_ebisu13,omitempty"` // the faster of Star13 and Temporal13 over EBISU13
}

// Report is the card's file.
type Report struct {
	Device  string            `json:"device"`
	Date    string            `json:"date"`
	Command string            `json:"command"`
	Peer    map[string]string `json:"peer"`
	Check   string            `json:"check"`
	Note    string            `json:"note,omitempty"` // what this file lacks, if anything
	Rows    []Row             `json:"rows"`
	Lab     []benchfile.Run   `json:"lab"`
	EBISU   []Record          `json:"ebisu"`
}

func cmdReport(args []string) error {
	fs := flag.NewFlagSet("ebisucheck report", flag.ContinueOnError)
	labFiles := fs.String("lab", "", "stencil bench -json files, comma-separated")
	runs := fs.String("runs", "runs.jsonl", "ebisucheck cmp's records")
	out := fs.String("o", "", "the card's JSON file")
	commit := fs.String("commit", "", "the EBISU commit vendored")
	command := fs.String("command", "bench/peers-gpu.sh", "the command that ran")
	note := fs.String("note", "", "what the file lacks, if anything")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rep := Report{Date: time.Now().UTC().Format(time.RFC3339), Command: *command, Note: *note,
		Peer: map[string]string{"name": "EBISU", "repository": "github.com/neozhang307/EBISU-ICS23", "commit": *commit, "license": "BSD-3-Clause"},
		Check: "every lab run checked whole against lab.Advance by stencil bench; every EBISU run's output compared with lab.Advance " +
			"(EBISU's coefficients, the same input) on the points at least radius·steps from every face, " +
			"within 1e-5·steps·max(1, largest |reference|), every output point finite"}
	for _, p := range strings.Split(*labFiles, ",") {
		if p == "" {
			continue
		}
		f, err := benchfile.Load(p)
		if err != nil {
			return err
		}
		if rep.Device == "" {
			rep.Device = f.Device
		}
		rep.Lab = append(rep.Lab, f.Results...)
	}
	data, err := os.ReadFile(*runs)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	for {
		var r Record
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("%s: %w", *runs, err)
		}
		rep.EBISU = append(rep.EBISU, r)
	}
	rep.Rows = Rows(rep.Lab, rep.EBISU)
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	for _, r := range rep.Rows {
		fmt.Printf("N=%4d steps=%2d fast %7.1f temporal %7.1f EBISU %7.1f (%s; A100 settings %7.1f) temporal/EBISU %.2f\n",
			r.N, r.Steps, r.Fast/1e9, r.Temporal/1e9, r.EBISU/1e9, r.EBISUVariant, r.EBISUA100/1e9, r.TemporalOverBest)
		fmt.Printf("N=%4d steps=%2d star13 %7.1f temporal13 %7.1f EBISU 3d13pt %7.1f (%s) lab13/EBISU %.2f\n",
			r.N, r.Steps, r.Star13/1e9, r.Temporal13/1e9, r.EBISU13/1e9, r.EBISU13Variant, r.Lab13OverEBISU13)
	}
	return nil
}

// Rows derives the table from the runs: per grid and step count, the
// lab's default fast, temporal, star13 and temporal13, and EBISU's
// fastest 3d7pt and 3d13pt runs that passed their gates.
func Rows(labRuns []benchfile.Run, ebisu []Record) []Row {
	type key struct{ n, steps int }
	rows := map[key]*Row{}
	var keys []key
	for _, r := range labRuns {
		if r.Label != "" && r.Label != r.Kernel {
			continue
		}
		k := key{r.N, r.TimeSteps()}
		if rows[k] == nil {
			rows[k] = &Row{N: k.n, Steps: k.steps}
			keys = append(keys, k)
		}
		switch r.Kernel {
		case "fast":
			rows[k].Fast = r.PointsPerSecond()
		case "temporal":
			rows[k].Temporal = r.PointsPerSecond()
		case "star13":
			rows[k].Star13 = r.PointsPerSecond()
		case "temporal13":
			rows[k].Temporal13 = r.PointsPerSecond()
		}
	}
	for _, e := range ebisu {
		row := rows[key{e.N, e.Steps}]
		if row == nil || e.Status != "ok" {
			continue
		}
		switch e.Stencil {
		case "3d7pt":
			if e.PointsPerSec > row.EBISU {
				row.EBISU, row.EBISUVariant = e.PointsPerSec, e.Variant+"/"+e.L2
			}
			if e.Variant == "a100" && e.L2 == "artifact" {
				row.EBISUA100 = e.PointsPerSec
			}
		case "3d13pt":
			if e.PointsPerSec > row.EBISU13 {
				row.EBISU13, row.EBISU13Variant = e.PointsPerSec, e.Variant+"/"+e.L2
			}
		}
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].n != keys[b].n {
			return keys[a].n < keys[b].n
		}
		return keys[a].steps < keys[b].steps
	})
	out := make([]Row, 0, len(keys))
	for _, k := range keys {
		r := *rows[k]
		if r.EBISU > 0 {
			r.TemporalOverBest = r.Temporal / r.EBISU
		}
		if r.EBISU13 > 0 {
			r.Lab13OverEBISU13 = max(r.Star13, r.Temporal13) / r.EBISU13
		}
		out = append(out, r)
	}
	return out
}
