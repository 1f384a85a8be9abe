package data

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shardedWant is one row of a comparison as the tests work it out from
// the JSON, with plain encoding/json.
type shardedWant struct {
	n, g             int
	kernel           string
	lab, jax         bool
	labGpts, labEff  float64
	jaxGpts, jaxEff  float64 // jaxEff NaN: null in the file
	jaxFailed, ratio bool
}

// shardedWants reads the file's lab.strong scaling rows of the default
// overlap and its jax.sharded rows into rows keyed by N, GPUs and step.
func shardedWants(t *testing.T, path string) (device string, want map[string]*shardedWant) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Device string `json:"device"`
		Lab    struct {
			Strong struct {
				Scaling []map[string]any `json:"scaling"`
			} `json:"strong"`
		} `json:"lab"`
		JAX struct {
			Sharded []map[string]any `json:"sharded"`
		} `json:"jax"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	key := func(n, g int, k string) string { return strconv.Itoa(n) + "/" + strconv.Itoa(g) + "/" + k }
	num := func(m map[string]any, k string) float64 {
		v, ok := m[k].(float64)
		if !ok {
			return math.NaN()
		}
		return v
	}
	want = map[string]*shardedWant{}
	kernels := map[int][]string{}
	for _, s := range doc.Lab.Strong.Scaling {
		if s["overlap"] != nil || s["weak"] == true {
			continue
		}
		n, g, k := int(num(s, "n")), int(num(s, "gpus")), s["kernel"].(string)
		want[key(n, g, k)] = &shardedWant{n: n, g: g, kernel: k, lab: true, labGpts: num(s, "points_per_second") / 1e9,
			labEff: num(s, "efficiency"), jaxEff: math.NaN()}
		if !strings.Contains(strings.Join(kernels[n], ","), k) {
			kernels[n] = append(kernels[n], k)
		}
	}
	for _, j := range doc.JAX.Sharded {
		n, g := int(num(j, "n")), int(num(j, "gpus"))
		ks := kernels[n]
		if len(ks) == 0 {
			ks = []string{""}
		}
		for _, k := range ks {
			w := want[key(n, g, k)]
			if w == nil {
				w = &shardedWant{n: n, g: g, kernel: k, jaxEff: math.NaN()}
				want[key(n, g, k)] = w
			}
			w.jax = true
			if _, failed := j["error"]; failed {
				w.jaxFailed = true
				continue
			}
			w.jaxGpts, w.jaxEff = num(j, "gpts"), num(j, "efficiency")
		}
	}
	for _, w := range want {
		w.ratio = w.lab && w.jax && !w.jaxFailed
	}
	return doc.Device, want
}

// checkShardedTable checks every row of the comparison and every cell of
// its table against the rows worked out from the JSON.
func checkShardedTable(t *testing.T, c *ShardedJAX, device string, want map[string]*shardedWant) {
	t.Helper()
	assert.Equal(t, device, c.Device)
	require.Len(t, c.Rows, len(want))
	for i, r := range c.Rows {
		if i > 0 {
			p := c.Rows[i-1]
			assert.True(t, p.N < r.N || p.N == r.N && (p.GPUs < r.GPUs || p.GPUs == r.GPUs && p.Kernel < r.Kernel), "rows by N, GPUs, step: %v before %v", p, r)
		}
		w := want[strconv.Itoa(r.N)+"/"+strconv.Itoa(r.GPUs)+"/"+r.Kernel]
		require.NotNil(t, w, "row %+v is not in the file", r)
		assert.Equal(t, w.lab, r.HasLab, "N = %d, G = %d", r.N, r.GPUs)
		assert.Equal(t, w.jax, r.HasJAX, "N = %d, G = %d", r.N, r.GPUs)
		assert.Equal(t, w.jaxFailed, r.JAXErr != "", "N = %d, G = %d", r.N, r.GPUs)
		assert.InDelta(t, w.labGpts, r.LabGpts, 1e-9*w.labGpts)
		assert.InDelta(t, w.labEff, r.LabEff, 1e-12)
		assert.InDelta(t, w.jaxGpts, r.JAXGpts, 1e-9*w.jaxGpts)
		if math.IsNaN(w.jaxEff) {
			assert.True(t, math.IsNaN(r.JAXEff), "N = %d, G = %d: no efficiency in the file", r.N, r.GPUs)
		} else {
			assert.InDelta(t, w.jaxEff, r.JAXEff, 1e-12)
		}
		got, ok := r.Ratio()
		require.Equal(t, w.ratio, ok, "N = %d, G = %d", r.N, r.GPUs)
		if ok {
			assert.InDelta(t, w.labGpts/w.jaxGpts, got, 1e-12*got)
		}
	}

	// The table: a line per row, eight columns, each cell the value
	// rounded as printed.
	table := c.String()
	assert.Contains(t, table, device)
	cell := func(t *testing.T, got string, v float64, ok bool, scale float64, places int) {
		t.Helper()
		if !ok || math.IsNaN(v) {
			assert.Contains(t, []string{"-", "failed"}, got)
			return
		}
		f, err := strconv.ParseFloat(got, 64)
		require.NoError(t, err, "cell %q", got)
		assert.InDelta(t, scale*v, f, 0.5*math.Pow(10, -float64(places))+1e-9, "cell %q for %g", got, scale*v)
	}
	seen := 0
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) != 8 {
			continue
		}
		n, err1 := strconv.Atoi(f[0])
		g, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		k := f[2]
		if k == "-" {
			k = ""
		}
		w := want[f[0]+"/"+f[1]+"/"+k]
		require.NotNil(t, w, "table line %q", line)
		assert.Equal(t, w.n, n)
		assert.Equal(t, w.g, g)
		cell(t, f[3], w.labGpts, w.lab, 1, 1)
		cell(t, f[4], w.labEff, w.lab, 100, 1)
		cell(t, f[5], w.jaxGpts, w.jax && !w.jaxFailed, 1, 1)
		cell(t, f[6], w.jaxEff, w.jax && !w.jaxFailed, 100, 1)
		if w.jaxFailed {
			assert.Equal(t, "failed", f[5])
		}
		cell(t, f[7], w.labGpts/w.jaxGpts, w.ratio, 1, 2)
		seen++
	}
	assert.Equal(t, len(want), seen, "a table line per row:\n%s", table)
}

// TestShardedJAXRecorded checks the committed comparison of 2 × H200.
func TestShardedJAXRecorded(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	path := filepath.Join(root, filepath.FromSlash(ShardedJAXFile))
	_, err = os.Stat(path)
	require.NoError(t, err, "notebook 11 draws from the committed comparison %s", ShardedJAXFile)
	c, err := ReadShardedJAX(ShardedJAXFile)
	require.NoError(t, err)
	device, want := shardedWants(t, path)
	require.NotEmpty(t, want)
	checkShardedTable(t, c, device, want)
	table, err := ShardedJAXTable(ShardedJAXFile)
	require.NoError(t, err)
	assert.Equal(t, c.String(), table)
	assert.Contains(t, table, ShardedJAXFile, "the table names its file, relative to the repository")
	assert.NotContains(t, table, root, "no path of this machine")
}

// TestShardedJAXRandom reads a synthetic file of random numbers: odd N,
// three GPUs, two of the lab's steps at one N, the lab alone at one N and
// JAX alone at another, a failed JAX run, a null efficiency, and rows of
// another overlap and of weak scaling, which the comparison leaves out.
func TestShardedJAXRandom(t *testing.T) {
	path, err := filepath.Abs(filepath.Join("testdata", "multigpu_peers_random.json"))
	require.NoError(t, err)
	c, err := ReadShardedJAX(path)
	require.NoError(t, err)
	device, want := shardedWants(t, path)
	checkShardedTable(t, c, device, want)
	assert.Equal(t, 1, c.Skipped, "the run of overlap copy")
	assert.Equal(t, "0.0.1", c.JAX)
	table := c.String()
	assert.Contains(t, table, "JAX failed at N = 301 on 3 GPUs: XlaRuntimeError")
	assert.Equal(t, 1, strings.Count(table, "JAX failed"), "one line per failed run, not per step")
	assert.Contains(t, table, "another overlap variant")
}

// An endless file (a device, a pipe, a file that grows) is read up to
// MaxDataFile bytes and refused, naming the limit, by every reader of the
// committed data.
func TestReadersAreBounded(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.json")
	f, err := os.Create(long)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxDataFile+1)) // sparse: no disk used
	require.NoError(t, f.Close())
	at := filepath.Join(dir, "fits.json")
	require.NoError(t, os.WriteFile(at, bytes.Repeat([]byte(" "), MaxDataFile), 0o644))
	limit := fmt.Sprintf("limit of %d bytes", MaxDataFile)
	readers := map[string]func(string) error{
		"ReadShardedJAX": func(p string) error { _, err := ReadShardedJAX(p); return err },
		"readBenches":    func(p string) error { _, err := readBenches(p); return err },
		"loadBench":      func(p string) error { _, err := loadBench(p); return err },
	}
	paths := []string{long}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for name, read := range readers {
		for _, p := range paths {
			err := read(p)
			assert.ErrorContains(t, err, limit, "%s(%s)", name, p)
		}
		// A file of exactly the limit is read; as blanks, it is not JSON.
		err := read(at)
		require.Error(t, err, name)
		assert.NotContains(t, err.Error(), "limit of", "%s reads a file of %d bytes", name, MaxDataFile)
	}
}

func TestShardedJAXMissing(t *testing.T) {
	_, err := ReadShardedJAX("docs/no_such_comparison.json")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.ErrorContains(t, err, "docs/no_such_comparison.json")
	table, err := ShardedJAXTable("docs/no_such_comparison.json")
	require.NoError(t, err)
	assert.Contains(t, table, "not recorded")
	assert.Contains(t, table, "docs/no_such_comparison.json")
	_, err = ReadShardedJAX("")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	var c *ShardedJAX
	assert.Contains(t, c.String(), "no comparison")
}

// TestShardedJAXMalformed: each file that is not a comparison is an error
// naming the file and what is wrong with it.
func TestShardedJAXMalformed(t *testing.T) {
	row := func(extra string) string {
		return `{"kernel": "fast", "n": 64, "nz": 64, "gpus": 1, "median_ms": 1, "points_per_second": 2e9, "base_gpus": 1, "base_ms": 1, "efficiency": 1` + extra + `}`
	}
	strong := `{"results": null, "scaling": [` + row("") + `]}`
	jax := `{"sharded": [{"n": 64, "gpus": 1, "gpts": 3, "efficiency": 1}]}`
	for name, c := range map[string]struct{ body, want string }{
		"not JSON":            {`{"lab": `, "unexpected end"},
		"an array":            {`[1, 2]`, "cannot unmarshal array"},
		"no lab":              {`{"jax": ` + jax + `}`, "no lab.strong"},
		"lab.strong null":     {`{"lab": {"strong": null}, "jax": ` + jax + `}`, "no lab.strong"},
		"lab.strong a string": {`{"lab": {"strong": "x"}, "jax": ` + jax + `}`, "lab.strong"},
		"negative rate":       {`{"lab": {"strong": {"results": null, "scaling": [` + strings.Replace(row(""), "2e9", "-2e9", 1) + `]}}, "jax": ` + jax + `}`, "points_per_second"},
		"only weak":           {`{"lab": {"strong": {"results": null, "scaling": [` + row(`, "weak": true`) + `]}}, "jax": ` + jax + `}`, "no strong-scaling run"},
		"twice the same run":  {`{"lab": {"strong": {"results": null, "scaling": [` + row("") + `, ` + row("") + `]}}, "jax": ` + jax + `}`, "a second run of fast at N = 64 on 1 GPUs"},
		"no jax":              {`{"lab": {"strong": ` + strong + `}}`, "no jax"},
		"no sharded runs":     {`{"lab": {"strong": ` + strong + `}, "jax": {"sharded": []}}`, "jax.sharded holds no run"},
		"JAX on 0 GPUs":       {`{"lab": {"strong": ` + strong + `}, "jax": {"sharded": [{"n": 64, "gpus": 0, "gpts": 3}]}}`, "jax.sharded[0]: N = 64 on 0 GPUs"},
		"JAX without a rate":  {`{"lab": {"strong": ` + strong + `}, "jax": {"sharded": [{"n": 64, "gpus": 1}]}}`, "jax.sharded[0]: gpts 0"},
		"JAX twice":           {`{"lab": {"strong": ` + strong + `}, "jax": {"sharded": [{"n": 64, "gpus": 1, "gpts": 3}, {"n": 64, "gpus": 1, "gpts": 4}]}}`, "jax.sharded[1]: a second run"},
		"JAX gpts a string":   {`{"lab": {"strong": ` + strong + `}, "jax": {"sharded": [{"n": 64, "gpus": 1, "gpts": "fast"}]}}`, "cannot unmarshal string"},
		"JAX efficiency < 0":  {`{"lab": {"strong": ` + strong + `}, "jax": {"sharded": [{"n": 64, "gpus": 1, "gpts": 3, "efficiency": -0.5}]}}`, "efficiency not below 0"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad_comparison.json")
			require.NoError(t, os.WriteFile(path, []byte(c.body), 0o644))
			_, err := ReadShardedJAX(path)
			require.Error(t, err)
			assert.ErrorContains(t, err, "bad_comparison.json")
			assert.ErrorContains(t, err, c.want)
			_, err = ShardedJAXTable(path)
			assert.ErrorContains(t, err, "bad_comparison.json", "a malformed file is an error, not a line")
		})
	}
	// The smallest good file reads, and its one row divides.
	path := filepath.Join(t.TempDir(), "good.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"lab": {"strong": `+strong+`}, "jax": `+jax+`}`), 0o644))
	c, err := ReadShardedJAX(path)
	require.NoError(t, err)
	require.Len(t, c.Rows, 1)
	v, ok := c.Rows[0].Ratio()
	require.True(t, ok)
	assert.InDelta(t, 2.0/3.0, v, 1e-12)
	assert.Contains(t, c.String(), "an unnamed machine")
}

// TestShardedJAXTruncated reads every prefix of the synthetic file and a
// few byte flips of it: each is read or refused with an error naming the
// file, never a panic.
func TestShardedJAXTruncated(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "multigpu_peers_random.json"))
	require.NoError(t, err)
	try := func(t *testing.T, b []byte) {
		t.Helper()
		c, err := parseShardedJAX("cut.json", b)
		if err != nil {
			assert.ErrorContains(t, err, "cut.json")
			return
		}
		_ = c.String()
	}
	for i := 0; i <= len(data); i++ {
		try(t, data[:i])
	}
	rng := rand.New(rand.NewPCG(11, 2026))
	for range 500 {
		b := slices.Clone(data)
		for range 1 + rng.IntN(4) {
			b[rng.IntN(len(b))] = "0123456789-.,:{}[]\"en"[rng.IntN(21)]
		}
		try(t, b)
	}
}

func TestShardedJAXRowRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 17))
	for range 7 {
		lab, jax := 1000*rng.Float64()+1e-3, 1000*rng.Float64()+1e-3
		r := ShardedJAXRow{HasLab: true, HasJAX: true, LabGpts: lab, JAXGpts: jax}
		v, ok := r.Ratio()
		require.True(t, ok)
		assert.InDelta(t, lab/jax, v, 1e-12*v)
		for _, odd := range []ShardedJAXRow{
			{HasLab: true, LabGpts: lab},
			{HasJAX: true, JAXGpts: jax},
			{HasLab: true, HasJAX: true, LabGpts: lab, JAXGpts: jax, JAXErr: "out of memory"},
			{HasLab: true, HasJAX: true, LabGpts: lab, JAXGpts: 0},
			{HasLab: true, HasJAX: true, LabGpts: math.NaN(), JAXGpts: jax},
			{HasLab: true, HasJAX: true, LabGpts: lab, JAXGpts: math.Inf(1)},
		} {
			_, ok := odd.Ratio()
			assert.False(t, ok, "%+v", odd)
		}
	}
}

// Any bytes read as the comparison file give a comparison or an error,
// never a panic, and a comparison read formats as a table.
func FuzzShardedJAX(f *testing.F) {
	for _, p := range []string{"testdata/multigpu_peers_random.json", filepath.Join("..", "..", "..", ShardedJAXFile)} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"device":"x","lab":{"strong":{"scaling":[]}},"jax":{"sharded":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseShardedJAX("fuzz.json", data)
		if err != nil {
			assert.Contains(t, err.Error(), "fuzz.json")
			return
		}
		require.NotNil(t, s)
		assert.NotEmpty(t, s.String())
	})
}
