package data

import (
	"encoding/json"
	"fmt"
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
	"stencillab.dev/lab/benchfile"
)

// rawBench is what the tests read of a bench with encoding/json alone, so
// that what CardRuns and its tables give is checked against the file
// itself.
type rawBench struct {
	Device string `json:"device"`
	Copy   []struct {
		N        int     `json:"n"`
		Bytes    float64 `json:"bytes"`
		MedianMs float64 `json:"median_ms"`
	} `json:"copy"`
	Interior []struct {
		N        int     `json:"n"`
		Bytes    float64 `json:"bytes"`
		MedianMs float64 `json:"median_ms"`
	} `json:"interior_copy"`
	Results []struct {
		Kernel   string   `json:"kernel"`
		Label    string   `json:"label"`
		N        int      `json:"n"`
		Tile     int      `json:"tile"`
		Defines  []string `json:"defines"`
		Steps    int      `json:"steps"`
		MedianMs float64  `json:"median_ms"`
	} `json:"results"`
}

// rawMarches returns, for the default temporal run of raw at n, its march
// and the median and steps of each run at n with the same kernel, tile and
// defines but TB_V, by march: the default's for its own, else the first.
func rawMarches(t *testing.T, raw rawBench, n int) (int, map[int][2]float64) {
	t.Helper()
	split := func(defs []string) (string, int) {
		rest, v := "", -1
		for _, d := range defs {
			if val, ok := strings.CutPrefix(d, "TB_V="); ok {
				x, err := strconv.Atoi(val)
				require.NoError(t, err, d)
				v = x
				continue
			}
			rest += d + ";"
		}
		return rest, v
	}
	def := -1
	var defRest string
	var defTile int
	out := map[int][2]float64{}
	for _, r := range raw.Results {
		if r.N == n && r.Kernel == "temporal" && r.Label == "temporal" {
			defRest, def = split(r.Defines)
			defTile = r.Tile
			out[def] = [2]float64{r.MedianMs, float64(r.Steps)}
		}
	}
	if def < 0 {
		return def, nil
	}
	for _, r := range raw.Results {
		rest, v := split(r.Defines)
		if _, seen := out[v]; !seen && r.N == n && r.Kernel == "temporal" && r.Tile == defTile && rest == defRest && v >= 0 {
			out[v] = [2]float64{r.MedianMs, float64(r.Steps)}
		}
	}
	return def, out
}

// cardRow is one row of a card table as printed: its fields by column.
func cardRow(t *testing.T, table, card string, n int) []string {
	t.Helper()
	for _, block := range strings.Split(table, "\n\n") {
		lines := strings.Split(block, "\n")
		if !strings.HasPrefix(lines[0], card+" (") {
			continue
		}
		for _, l := range lines[2:] {
			if f := strings.Fields(l); len(f) > 0 && f[0] == strconv.Itoa(n) {
				return f
			}
		}
	}
	t.Fatalf("no row of %s at N = %d in\n%s", card, n, table)
	return nil
}

// num parses a printed number of a table.
func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, "%q", s)
	return v
}

// The committed benches of both cards: every row of the tables, the card
// named by the file's device field, its shares worked out again from the
// times and the copy's bytes, the speed-up from the two times.
func TestCardRunsRecorded(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(CardBenchGlob)))
	require.NoError(t, err)
	require.NotEmpty(t, files, "notebooks 07 and 07b draw from the committed benches of %s", CardBenchGlob)
	cs, err := CardRuns()
	require.NoError(t, err)
	fast, temporal := CardFastTable(cs), CardTemporalTable(cs)
	rows := 0
	// Every march any bench ran beside its default gets a column, in
	// increasing order.
	var allMarches []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var raw rawBench
		require.NoError(t, json.Unmarshal(b, &raw), f)
		for _, cp := range raw.Copy {
			_, ms := rawMarches(t, raw, cp.N)
			for v := range ms {
				if !slices.Contains(allMarches, v) {
					allMarches = append(allMarches, v)
				}
			}
		}
	}
	slices.Sort(allMarches)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var raw rawBench
		require.NoError(t, json.Unmarshal(b, &raw), f)
		require.NotEmpty(t, raw.Device, f)
		for _, cp := range raw.Copy {
			n := cp.N
			var fastMs, tMs float64
			var fastSteps, tSteps int
			for _, r := range raw.Results {
				switch {
				case r.N == n && r.Label == "fast" && r.Kernel == "fast":
					fastMs, fastSteps = r.MedianMs, r.Steps
				case r.N == n && r.Label == "temporal" && r.Kernel == "temporal":
					tMs, tSteps = r.MedianMs, r.Steps
				}
			}
			require.Positive(t, fastMs, "%s: the fast sweep at N = %d", f, n)
			require.Positive(t, tMs, "%s: the temporal step at N = %d", f, n)
			rows++
			// 8 bytes per interior point and time step over the median,
			// against the copy's bytes over its median.
			inner := float64(n-2) * float64(n-2) * float64(n-2)
			share := func(ms float64, steps int, copyBytes, copyMs float64) float64 {
				return 100 * (8 * inner * float64(steps) / ms) / (copyBytes / copyMs)
			}
			wantFastPct := share(fastMs, fastSteps, cp.Bytes, cp.MedianMs)
			wantTPct := share(tMs, tSteps, cp.Bytes, cp.MedianMs)
			var wantInt float64
			for _, in := range raw.Interior {
				if in.N == n {
					wantInt = share(fastMs, fastSteps, in.Bytes, in.MedianMs)
				}
			}
			// The same points in each run: the speed-up is the ratio of
			// the times per time step.
			wantSpeed := (fastMs / float64(fastSteps)) / (tMs / float64(tSteps))

			var got *CardRun
			for i := range cs {
				if cs[i].Card == raw.Device && cs[i].N == n {
					got = &cs[i]
				}
			}
			require.NotNil(t, got, "%s at N = %d", raw.Device, n)
			rel, err := filepath.Rel(root, f)
			require.NoError(t, err)
			assert.Equal(t, filepath.ToSlash(rel), got.File)
			assert.Equal(t, cp.MedianMs, got.CopyMs)
			require.NotNil(t, got.Fast)
			require.NotNil(t, got.Temporal)
			assert.Equal(t, fastMs, got.Fast.MedianMs)
			assert.Equal(t, tMs, got.Temporal.MedianMs)
			sp, ok := got.Speedup()
			require.True(t, ok)
			assert.InDelta(t, wantSpeed, sp, 1e-9)

			def, marchMs := rawMarches(t, raw, n)
			require.GreaterOrEqual(t, def, 0, "%s: the default names its march", f)
			v, ok := got.TemporalMarch()
			require.True(t, ok)
			assert.Equal(t, def, v)
			require.Len(t, got.Marches, len(marchMs))
			for _, m := range got.Marches {
				assert.Equal(t, marchMs[m.March][0], m.Run.MedianMs, "march %d", m.March)
			}

			row := cardRow(t, temporal, raw.Device, n)
			require.Len(t, row, 10+len(allMarches), "%v", row)
			assert.Equal(t, strconv.Itoa(fastSteps), row[1])
			assert.InDelta(t, cp.MedianMs, num(t, row[2]), 0.00005)
			assert.InDelta(t, fastMs, num(t, row[3]), 0.00005)
			assert.InDelta(t, wantFastPct, num(t, row[4]), 0.06, "the fast sweep's share of the copy")
			assert.InDelta(t, wantInt, num(t, row[5]), 0.06, "the fast sweep's share of the interior copy")
			assert.InDelta(t, tMs, num(t, row[6]), 0.00005)
			assert.InDelta(t, wantTPct, num(t, row[7]), 0.06, "the temporal step's share of the copy")
			assert.InDelta(t, wantSpeed, num(t, row[8]), 0.005, "× fast")
			assert.Equal(t, strconv.Itoa(def), row[9], "the default's march")
			for i, v := range allMarches {
				m, ok := marchMs[v]
				if !ok {
					assert.Equal(t, "-", row[10+i], "march %d not run", v)
					continue
				}
				want := (fastMs / float64(fastSteps)) / (m[0] / m[1])
				assert.InDelta(t, want, num(t, row[10+i]), 0.005, "march %d × fast", v)
				sp, ok := got.MarchSpeedup(v)
				require.True(t, ok)
				assert.InDelta(t, want, sp, 1e-9)
			}
			assert.InDelta(t, wantSpeed, num(t, row[10+slices.Index(allMarches, def)]), 0.005, "the default's own march column")
			assert.Equal(t, row[:6], cardRow(t, fast, raw.Device, n), "the fast table is the temporal one's first columns")
		}
	}
	assert.Len(t, cs, rows, "one row per card and side, all recorded")
}

// writeBench writes a bench of the fast and temporal steps on card at each
// side of ns to root's docs under name, with the given times.
type benchSpec struct {
	name, card         string
	ns                 []int
	copyMs, intMs      float64
	fastMs, tMs        float64
	fastSteps, tSteps  int
	noTemporal, noFast bool
	march              int             // the default's march; −1: its defines name none
	marchMs            map[int]float64 // other marches' times, the default's other defines
}

func writeBench(t *testing.T, root string, s benchSpec) {
	t.Helper()
	run := func(kernel string, n, steps int, ms float64) map[string]any {
		gbps := 8 * math.Pow(float64(n-2), 3) * float64(steps) / (ms * 1e6)
		copyGBps := 8 * math.Pow(float64(n), 3) / (s.copyMs * 1e6)
		return map[string]any{"kernel": kernel, "label": kernel, "n": n, "steps": steps, "median_ms": ms,
			"gbps": gbps, "gflops": 13 * gbps / 8, "copy_gbps": copyGBps, "pct_copy": 100 * gbps / copyGBps}
	}
	var copies, interior, results []map[string]any
	for _, n := range s.ns {
		copies = append(copies, map[string]any{"n": n, "bytes": 8 * math.Pow(float64(n), 3), "median_ms": s.copyMs})
		interior = append(interior, map[string]any{"n": n, "bytes": 8 * math.Pow(float64(n-2), 3), "median_ms": s.intMs})
		if !s.noFast {
			results = append(results, run("fast", n, s.fastSteps, s.fastMs))
		}
		defs := func(march int) []string {
			d := []string{"TB_K=3", "TB_BX=64", "TB_BY=32"}
			if march >= 0 {
				d = append(d, fmt.Sprintf("TB_V=%d", march))
			}
			return append(d, "TB_MINB=2")
		}
		if !s.noTemporal {
			r := run("temporal", n, s.tSteps, s.tMs)
			r["tile"], r["defines"] = 3, defs(s.march)
			results = append(results, r)
		}
		for v, ms := range s.marchMs {
			r := run("temporal", n, s.tSteps, ms)
			r["label"], r["tile"], r["defines"] = fmt.Sprintf("temporal[tile=3,TB_V=%d]", v), 3, defs(v)
			results = append(results, r)
		}
		// Variants of the temporal step, which the tables leave out: another
		// tile, and the default's march with another define.
		v := run("temporal", n, s.tSteps, s.tMs/2)
		v["label"] = "temporal[tile=2]"
		results = append(results, v)
		w := run("temporal", n, s.tSteps, s.tMs/3)
		w["label"], w["tile"], w["defines"] = "temporal[tile=3,TB_BY=16,TB_V=7]", 3, []string{"TB_K=3", "TB_BX=64", "TB_BY=16", "TB_V=7", "TB_MINB=2"}
		results = append(results, w)
	}
	b, err := json.Marshal(map[string]any{"device": s.card, "command": "stencil bench", "copy": copies,
		"interior_copy": interior, "results": results})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", s.name), b, 0o644))
}

// Benches with random times on odd sides: a card missing at a side gets a
// row that says so, the speed-up is the ratio of the times per time step
// even where the two runs advanced different numbers of steps.
func TestCardRunsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 25))
	for trial := range 5 {
		root := t.TempDir()
		a := benchSpec{name: "temporal_a_n37_24steps.json", card: "Card A", ns: []int{37, 130},
			copyMs: 0.1 + rng.Float64(), intMs: 0.1 + rng.Float64(), fastMs: 1 + 10*rng.Float64(), tMs: 1 + 10*rng.Float64(),
			fastSteps: 1 + rng.IntN(30), tSteps: 1 + rng.IntN(30),
			march: 1, marchMs: map[int]float64{5: 1 + 10*rng.Float64(), 2: 1 + 10*rng.Float64()}}
		bb := benchSpec{name: "temporal_b_n130_24steps.json", card: "Card B", ns: []int{130},
			copyMs: 0.1 + rng.Float64(), intMs: 0.1 + rng.Float64(), fastMs: 1 + 10*rng.Float64(), tMs: 1 + 10*rng.Float64(),
			fastSteps: 24, tSteps: 24, noTemporal: trial == 0, march: -1}
		writeBench(t, root, a)
		writeBench(t, root, bb)
		// Not a bench of the glob: left alone.
		require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "temporal_c_n37.json"), []byte("{"), 0o644))

		cs, err := cardRunsIn(root)
		require.NoError(t, err)
		require.Len(t, cs, 4, "two cards at two sides")
		assert.Equal(t, []string{"Card A", "Card A", "Card B", "Card B"}, []string{cs[0].Card, cs[1].Card, cs[2].Card, cs[3].Card})
		assert.Equal(t, []int{37, 130, 37, 130}, []int{cs[0].N, cs[1].N, cs[2].N, cs[3].N})
		assert.False(t, cs[2].Recorded(), "card B was not run at 37")
		assert.Equal(t, "docs/"+bb.name, cs[3].File)

		want := (a.fastMs / float64(a.fastSteps)) / (a.tMs / float64(a.tSteps))
		for _, c := range cs[:2] {
			sp, ok := c.Speedup()
			require.True(t, ok)
			assert.InDelta(t, want, sp, 1e-9)
			assert.Equal(t, a.copyMs, c.CopyMs)
			assert.Equal(t, a.intMs, c.InteriorCopyMs)
		}
		// Card A's default is march 1, and marches 2 and 5 ran beside it;
		// card B's default names no march.
		for _, c := range cs[:2] {
			v, ok := c.TemporalMarch()
			require.True(t, ok)
			assert.Equal(t, 1, v)
			require.Len(t, c.Marches, 3)
			assert.Equal(t, []int{1, 2, 5}, []int{c.Marches[0].March, c.Marches[1].March, c.Marches[2].March})
			assert.Equal(t, a.tMs, c.Marches[0].Run.MedianMs)
			for _, v := range []int{2, 5} {
				sp, ok := c.MarchSpeedup(v)
				require.True(t, ok)
				assert.InDelta(t, (a.fastMs/float64(a.fastSteps))/(a.marchMs[v]/float64(a.tSteps)), sp, 1e-9)
			}
			_, ok = c.MarchSpeedup(0)
			assert.False(t, ok, "march 0 was not run")
		}
		_, ok := cs[3].TemporalMarch()
		assert.False(t, ok)
		assert.Empty(t, cs[3].Marches)

		table := CardTemporalTable(cs)
		assert.Contains(t, table, "  m1 ×   m2 ×   m5 ×\n")
		row := cardRow(t, table, "Card A", 130)
		require.Len(t, row, 13, "%v", row)
		assert.Equal(t, fmt.Sprintf("%.2f", want), row[8])
		assert.Equal(t, "1", row[9])
		assert.Equal(t, fmt.Sprintf("%.2f", want), row[10], "march 1 is the default")
		for i, v := range []int{2, 5} {
			assert.Equal(t, fmt.Sprintf("%.2f", (a.fastMs/float64(a.fastSteps))/(a.marchMs[v]/float64(a.tSteps))), row[11+i])
		}
		if trial > 0 {
			assert.Equal(t, []string{"-", "-", "-", "-"}, cardRow(t, table, "Card B", 130)[9:], "card B's default names no march")
		}
		assert.Equal(t, fmt.Sprintf("%.4f", a.tMs), row[6])
		inner := math.Pow(128, 3)
		wantPct := 100 * (8 * inner * float64(a.fastSteps) / a.fastMs) / (8 * math.Pow(130, 3) / a.copyMs)
		assert.InDelta(t, wantPct, num(t, row[4]), 0.051)
		assert.Equal(t, []string{"37", "none", "recorded:"}, cardRow(t, table, "Card B", 37)[:3])
		assert.Contains(t, table, "Card B (docs/"+bb.name+")")
		if trial == 0 {
			_, ok := cs[3].Speedup()
			assert.False(t, ok, "no temporal run")
			assert.Equal(t, []string{"none", "-", "-", "-", "-", "-", "-"}, cardRow(t, table, "Card B", 130)[6:])
		}
	}
}

// A missing bench is no error; one that cannot be read, names no card or
// repeats a card and side is, and names its file.
func TestCardRunsErrors(t *testing.T) {
	cs, err := cardRunsIn(t.TempDir())
	require.NoError(t, err)
	assert.Empty(t, cs)
	assert.Equal(t, "no bench on a card recorded yet (docs/temporal_*_24steps.json)\n", CardTemporalTable(cs))
	assert.Equal(t, CardTemporalTable(nil), CardFastTable(nil))

	spec := benchSpec{card: "Card A", ns: []int{64}, copyMs: 1, intMs: 1, fastMs: 2, tMs: 1, fastSteps: 3, tSteps: 3, march: 2}
	for _, tc := range []struct {
		name, content, want string
	}{
		{"temporal_x_n64_24steps.json", "{", "temporal_x_n64_24steps.json"},
		{"temporal_x_n64_24steps.json", `{"device": "X", "results": [{"kernel": "fast", "n": 2, "median_ms": 1, "gbps": 1, "gflops": 1}]}`, "below 3"},
		{"temporal_x_n64_24steps.json", `{"results": [{"kernel": "fast", "n": 64, "median_ms": 1, "gbps": 1, "gflops": 1}]}`, "names no device"},
		{"temporal_z_n64_24steps.json", `{"device": "Card A", "results": [{"kernel": "fast", "n": 64, "median_ms": 1, "gbps": 1, "gflops": 1}]}`, "both hold Card A at N = 64"},
	} {
		root := t.TempDir()
		s := spec
		s.name = "temporal_a_n64_24steps.json"
		writeBench(t, root, s)
		require.NoError(t, os.WriteFile(filepath.Join(root, "docs", tc.name), []byte(tc.content), 0o644))
		_, err := cardRunsIn(root)
		require.Error(t, err, tc.content)
		assert.Contains(t, err.Error(), tc.want)
		assert.Contains(t, err.Error(), tc.name)
		assert.ErrorIs(t, err, benchfile.ErrInvalid)
	}
}

// Rows the tables cannot fill print a dash or "none", never panic.
func TestCardTablesPartial(t *testing.T) {
	fast := benchfile.Run{Kernel: "fast", Label: "fast", N: 5, Steps: 2, MedianMs: 4, PctCopy: 50}
	cs := []CardRun{
		{Card: "", File: "docs/x.json", N: 5},
		{Card: "Y", File: "docs/y.json", N: 5, Fast: &fast},
		{Card: "Y", N: 7},
	}
	table := CardTemporalTable(cs)
	assert.Equal(t, []string{"5", "-", "-", "none", "-", "-", "none", "-", "-", "-"}, cardRow(t, table, "", 5))
	assert.Equal(t, []string{"5", "2", "-", "4.0000", "50.0", "-", "none", "-", "-", "-"}, cardRow(t, table, "Y", 5))
	assert.Contains(t, table, "    7  none recorded")
	assert.NotContains(t, table, "m0 ×", "no march column without a march run")
	_, ok := CardRun{}.Speedup()
	assert.False(t, ok)
	_, ok = CardRun{}.TemporalMarch()
	assert.False(t, ok)
	_, ok = CardRun{Marches: []MarchRun{{March: 1}}}.MarchSpeedup(1)
	assert.False(t, ok, "no fast sweep")

	// A march a card lacks is a dash; defines that name the march twice or
	// not as a number name none.
	tm := benchfile.Run{Kernel: "temporal", Label: "temporal", N: 5, Steps: 2, MedianMs: 1, Defines: []string{"TB_V=0"}}
	m2 := tm
	m2.MedianMs, m2.Defines = 2, []string{"TB_V=2"}
	cs = []CardRun{{Card: "Z", File: "docs/z.json", N: 5, Fast: &fast, Temporal: &tm, Marches: []MarchRun{{0, tm}, {2, m2}}},
		{Card: "Z", File: "docs/z.json", N: 9, Fast: &fast, Temporal: &tm, Marches: []MarchRun{{0, tm}}}}
	table = CardTemporalTable(cs)
	assert.Equal(t, []string{"0", "4.00", "2.00"}, cardRow(t, table, "Z", 5)[9:])
	assert.Equal(t, []string{"0", "4.00", "-"}, cardRow(t, table, "Z", 9)[9:])
	for _, defs := range [][]string{{"TB_V=1", "TB_V=1"}, {"TB_V=x"}, {"TB_V"}, nil} {
		_, ok := runMarch(benchfile.Run{Defines: defs})
		assert.False(t, ok, "%q", defs)
	}
	v, ok := runMarch(benchfile.Run{Defines: []string{"TB_K=4", " TB_V = 2 "}})
	assert.True(t, ok)
	assert.Equal(t, 2, v)
}
