package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"stencillab.dev/lab/benchfile"
)

// ShardedJAXFile is the recorded comparison of the lab with sharded JAX,
// relative to the repository.
const ShardedJAXFile = "docs/multigpu_h200x2_jax.json"

// ShardedJAX is one recorded comparison of the lab with sharded JAX.
type ShardedJAX struct {
	File    string          // the file as it was named
	Device  string          // the machine, as the file names it ("2 × NVIDIA H200")
	Date    string          // the day of the run
	JAX     string          // JAX's version
	LabCmd  string          // the command of the lab's strong-scaling bench
	JAXCmd  string          // the command of bench/peers.py
	Rows    []ShardedJAXRow // by N, then GPUs, then the lab's step
	Skipped int             // lab rows of another overlap variant than the default, left out
}

// ShardedJAXRow is one grid side on one number of GPUs: the lab's strong
// scaling (its default overlap) beside sharded JAX's. Gpt/s is interior
// points times time steps per second, as both files count them.
type ShardedJAXRow struct {
	N, GPUs int
	Kernel  string // the lab's step; "" when the lab has no run here

	HasLab   bool
	LabGpts  float64 // the lab's points per second / 1e9
	LabEff   float64 // the lab's efficiency against its base run, the fewest GPUs (1 = perfect)
	LabCheck string  // how the lab checked its output

	HasJAX  bool
	JAXGpts float64 // JAX's gpts
	JAXEff  float64 // JAX's efficiency against its fewest GPUs; NaN when the file has none
	JAXErr  string  // why JAX's run failed, when it did
}

// Ratio returns the lab's points per second over JAX's, and false when
// either side has no rate to divide.
func (r ShardedJAXRow) Ratio() (float64, bool) {
	if !r.HasLab || !r.HasJAX || r.JAXErr != "" || !positive(r.LabGpts) || !positive(r.JAXGpts) {
		return 0, false
	}
	return r.LabGpts / r.JAXGpts, true
}

func positive(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

// shardedFile is the part of the file the comparison reads.
type shardedFile struct {
	Device string `json:"device"`
	Date   string `json:"date"`
	Lab    struct {
		Strong json.RawMessage `json:"strong"`
	} `json:"lab"`
	JAX *struct {
		Command  string            `json:"command"`
		Versions map[string]string `json:"versions"`
		Sharded  []shardedRun      `json:"sharded"`
	} `json:"jax"`
}

// shardedRun is one row of bench/peers.py's sharded list.
type shardedRun struct {
	Name       string   `json:"name"`
	N          int      `json:"n"`
	GPUs       int      `json:"gpus"`
	Gpts       float64  `json:"gpts"`
	Efficiency *float64 `json:"efficiency"`
	Error      string   `json:"error"`
}

// ReadShardedJAX reads a comparison of the lab with sharded JAX. A
// relative path is taken from the repository's root. A missing file is
// an error that matches fs.ErrNotExist; a file that is not such a
// comparison is an error naming the file and what it lacks.
func ReadShardedJAX(path string) (*ShardedJAX, error) {
	if path == "" {
		return nil, fmt.Errorf("nbrun: sharded JAX: no file named: %w", fs.ErrNotExist)
	}
	full := path
	if !filepath.IsAbs(path) {
		root, err := RepoRoot()
		if err != nil {
			return nil, err
		}
		full = filepath.Join(root, filepath.FromSlash(path))
	}
	data, err := readData(full) // its errors leave out the machine's path
	if err != nil {
		return nil, fmt.Errorf("nbrun: sharded JAX: %s: %w", path, err)
	}
	return parseShardedJAX(path, data)
}

// parseShardedJAX reads the comparison in data, named path in errors.
func parseShardedJAX(path string, data []byte) (*ShardedJAX, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("nbrun: sharded JAX: %s: %s", path, fmt.Sprintf(format, a...))
	}
	var f shardedFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("nbrun: sharded JAX: %s: %w", path, err)
	}
	if len(bytes.TrimSpace(f.Lab.Strong)) == 0 || string(bytes.TrimSpace(f.Lab.Strong)) == "null" {
		return nil, bad("no lab.strong: the lab's strong-scaling bench is missing")
	}
	strong, err := benchfile.Read(bytes.NewReader(f.Lab.Strong))
	if err != nil {
		return nil, fmt.Errorf("nbrun: sharded JAX: %s: lab.strong: %w", path, err)
	}
	if f.JAX == nil {
		return nil, bad("no jax: bench/peers.py's output is missing")
	}
	if len(f.JAX.Sharded) == 0 {
		return nil, bad("jax.sharded holds no run")
	}
	c := &ShardedJAX{File: path, Device: f.Device, Date: f.Date, JAX: f.JAX.Versions["jax"], LabCmd: strong.Command, JAXCmd: f.JAX.Command}
	if c.Device == "" {
		c.Device = strong.Device
	}
	type key struct {
		n, g   int
		kernel string
	}
	rows := map[key]*ShardedJAXRow{}
	get := func(k key) *ShardedJAXRow {
		if rows[k] == nil {
			rows[k] = &ShardedJAXRow{N: k.n, GPUs: k.g, Kernel: k.kernel, JAXEff: math.NaN()}
		}
		return rows[k]
	}
	kernels := map[int][]string{} // the lab's steps at each N, for JAX's rows
	for i, s := range strong.Scaling {
		if s.Weak {
			continue
		}
		if s.Overlap != "" {
			c.Skipped++
			continue
		}
		// benchfile.Read checked the rate, the efficiency and the GPUs.
		r := get(key{s.N, s.GPUs, s.Kernel})
		if r.HasLab {
			return nil, bad("lab.strong.scaling[%d]: a second run of %s at N = %d on %d GPUs", i, s.Kernel, s.N, s.GPUs)
		}
		r.HasLab, r.LabGpts, r.LabEff, r.LabCheck = true, s.PointsPerSec/1e9, s.Efficiency, s.Checked
		if !slices.Contains(kernels[s.N], s.Kernel) {
			kernels[s.N] = append(kernels[s.N], s.Kernel)
		}
	}
	if len(rows) == 0 {
		return nil, bad("lab.strong holds no strong-scaling run of the default overlap")
	}
	seen := map[[2]int]bool{}
	for i, j := range f.JAX.Sharded {
		if j.N < 3 || j.GPUs < 1 {
			return nil, bad("jax.sharded[%d]: N = %d on %d GPUs, want N of at least 3 on at least 1 GPU", i, j.N, j.GPUs)
		}
		if seen[[2]int{j.N, j.GPUs}] {
			return nil, bad("jax.sharded[%d]: a second run at N = %d on %d GPUs", i, j.N, j.GPUs)
		}
		seen[[2]int{j.N, j.GPUs}] = true
		if j.Error == "" && (!positive(j.Gpts) || (j.Efficiency != nil && (*j.Efficiency < 0 || math.IsInf(*j.Efficiency, 0)))) {
			return nil, bad("jax.sharded[%d]: gpts %g, want a positive rate and an efficiency not below 0", i, j.Gpts)
		}
		ks := kernels[j.N]
		if len(ks) == 0 {
			ks = []string{""}
		}
		for _, k := range ks {
			r := get(key{j.N, j.GPUs, k})
			r.HasJAX, r.JAXErr = true, j.Error
			if j.Error == "" {
				r.JAXGpts = j.Gpts
				if j.Efficiency != nil {
					r.JAXEff = *j.Efficiency
				}
			}
		}
	}
	for _, r := range rows {
		c.Rows = append(c.Rows, *r)
	}
	slices.SortFunc(c.Rows, func(a, b ShardedJAXRow) int {
		if a.N != b.N {
			return a.N - b.N
		}
		if a.GPUs != b.GPUs {
			return a.GPUs - b.GPUs
		}
		return strings.Compare(a.Kernel, b.Kernel)
	})
	return c, nil
}

// String prints the comparison: one block per N, a row per number of
// GPUs, the lab's Gpt/s and efficiency, JAX's, and the lab's rate over
// JAX's.
func (c *ShardedJAX) String() string {
	if c == nil {
		return "no comparison with sharded JAX\n"
	}
	var b strings.Builder
	device := c.Device
	if strings.TrimSpace(device) == "" {
		device = "an unnamed machine"
	}
	jax := "JAX"
	if c.JAX != "" {
		jax += " " + c.JAX
	}
	fmt.Fprintf(&b, "The lab against sharded %s on %s", jax, device)
	if c.Date != "" {
		fmt.Fprintf(&b, ", %s", c.Date)
	}
	fmt.Fprintf(&b, " (%s)\n", c.File)
	b.WriteString("Gpt/s: interior points × time steps per second; efficiency: against the same N on the fewest GPUs each side ran\n")
	fmt.Fprintf(&b, "%5s %4s  %-8s %9s %7s  %9s %7s  %9s\n", "N", "GPUs", "lab step", "lab Gpt/s", "eff %", "JAX Gpt/s", "eff %", "lab ÷ JAX")
	for i, r := range c.Rows {
		if i > 0 && r.N != c.Rows[i-1].N {
			b.WriteString("\n")
		}
		kernel, lab, labEff := r.Kernel, "-", "-"
		if kernel == "" {
			kernel = "-"
		}
		if r.HasLab {
			lab, labEff = fmt.Sprintf("%.1f", r.LabGpts), fmt.Sprintf("%.1f", 100*r.LabEff)
		}
		jax, jaxEff := "-", "-"
		switch {
		case r.HasJAX && r.JAXErr != "":
			jax = "failed"
		case r.HasJAX:
			jax = fmt.Sprintf("%.1f", r.JAXGpts)
			if !math.IsNaN(r.JAXEff) {
				jaxEff = fmt.Sprintf("%.1f", 100*r.JAXEff)
			}
		}
		ratio := "-"
		if v, ok := r.Ratio(); ok {
			ratio = fmt.Sprintf("%.2f", v)
		}
		fmt.Fprintf(&b, "%5d %4d  %-8s %9s %7s  %9s %7s  %9s\n", r.N, r.GPUs, kernel, lab, labEff, jax, jaxEff, ratio)
	}
	failed := map[[2]int]bool{}
	for _, r := range c.Rows {
		if r.JAXErr != "" && !failed[[2]int{r.N, r.GPUs}] {
			failed[[2]int{r.N, r.GPUs}] = true
			fmt.Fprintf(&b, "JAX failed at N = %d on %d GPUs: %.80s\n", r.N, r.GPUs, r.JAXErr)
		}
	}
	if c.Skipped > 0 {
		runs := "runs"
		if c.Skipped == 1 {
			runs = "run"
		}
		fmt.Fprintf(&b, "(left out: %d %s of the lab with another overlap variant than the default)\n", c.Skipped, runs)
	}
	if c.LabCmd != "" || c.JAXCmd != "" {
		fmt.Fprintf(&b, "lab: %s\nJAX: %s\n", orDash(c.LabCmd), orDash(c.JAXCmd))
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ShardedJAXTable returns the table of the comparison in path (see
// ReadShardedJAX), or, when the file is not there, a line saying that
// it is not recorded and how to record it.
func ShardedJAXTable(path string) (string, error) {
	c, err := ReadShardedJAX(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("The lab against sharded JAX is not recorded in this copy of the repository (%s): run scripts/multigpu-gpu.sh with STEPS=\"bench jax\" on a machine with several GPUs.\n", path), nil
	}
	if err != nil {
		return "", err
	}
	return c.String(), nil
}
