package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// Every candidate of a tuned step is a setting the step accepts, takes
// values its table marks as tried, and resolves to a configuration of its
// own; the registered default comes first, and every combination of the
// tried values and tiles is there unless it resolves as another does.
func TestCandidatesFromTheTable(t *testing.T) {
	plans := tunedSteps(t)
	require.NotEmpty(t, plans)
	for _, p := range plans {
		cs, err := Candidates(p)
		require.NoError(t, err)
		assert.Equal(t, "default", cs[0].String(), p.Name)
		tried := map[string][]int{}
		combos := 1
		for _, prm := range Params(p.Name) {
			if len(prm.Tried) > 0 {
				tried[prm.Name] = prm.Tried
				combos *= len(prm.Tried)
			}
		}
		tiles := tunings[p.Name].(tileTrier).triedTiles()
		// The resolved configurations of every combination, counted
		// independently of Candidates.
		resolved := map[string]bool{}
		plan := func(s Setting) string {
			pl, err := PlanLaunch(p.Name, Options{Tile: s.Tile, Defines: s.Defines}, 64, 64, 64)
			require.NoError(t, err, "%s %s", p.Name, s)
			return fmt.Sprint(pl.Defines, pl.Geometry, pl.Tile)
		}
		resolved[plan(Setting{})] = true
		var enumerate func(i int, ds []Define, names []string)
		names := slicesSorted(tried)
		enumerate = func(i int, ds []Define, names []string) {
			if i == len(names) {
				for _, tile := range tiles {
					resolved[plan(Setting{Tile: tile, Defines: ds})] = true
				}
				return
			}
			for _, v := range tried[names[i]] {
				enumerate(i+1, append(slices.Clone(ds), Define{names[i], strconv.Itoa(v)}), names)
			}
		}
		enumerate(0, nil, names)
		assert.LessOrEqual(t, len(cs), 1+combos*len(tiles), p.Name)
		assert.Len(t, cs, len(resolved), "%s: one candidate per resolved configuration", p.Name)
		seen := map[string]bool{}
		for _, s := range cs {
			k := plan(s)
			assert.False(t, seen[k], "%s: %s twice", p.Name, s)
			seen[k] = true
			for _, d := range s.Defines {
				v, err := strconv.Atoi(d.Value)
				require.NoError(t, err)
				assert.Contains(t, tried[d.Name], v, "%s %s", p.Name, d)
			}
			assert.Contains(t, append(tiles, 0), s.Tile, p.Name)
		}
	}
}

func slicesSorted(m map[string][]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The size class is the power of two nearest n in ratio.
func TestSizeClass(t *testing.T) {
	for n := 2; n <= 5000; n++ {
		c := SizeClass(n)
		require.Equal(t, 0, c&(c-1), "n=%d: %d is a power of two", n, c)
		assert.LessOrEqual(t, math.Abs(math.Log2(float64(n))-math.Log2(float64(c))), 0.5+1e-12, "n=%d", n)
	}
	assert.Equal(t, 512, SizeClass(510))
	assert.Equal(t, 1024, SizeClass(1022))
}

// pick keeps the fastest candidate whose try passed, the first among
// equals, and refuses when none passed.
func TestPickFastestThatPassed(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for trial := range 200 {
		n := 1 + r.IntN(12)
		cands := make([]Setting, n)
		ms := make([]float64, n)
		fail := make([]bool, n)
		for i := range cands {
			cands[i] = Setting{Tile: i + 1}
			ms[i] = float64(1 + r.IntN(5))
			fail[i] = r.IntN(3) == 0
		}
		want := -1
		for i := range ms {
			if !fail[i] && (want < 0 || ms[i] < ms[want]) {
				want = i
			}
		}
		got, tried, err := pick(cands, func(s Setting) (float64, error) {
			i := s.Tile - 1
			if fail[i] {
				return 0, fmt.Errorf("wrong output %d", i)
			}
			return ms[i], nil
		})
		require.Len(t, tried, n)
		if want < 0 {
			require.Error(t, err, "trial %d", trial)
			continue
		}
		require.NoError(t, err, "trial %d", trial)
		assert.Equal(t, want, got, "trial %d", trial)
		for i, tr := range tried {
			assert.Equal(t, fail[i], tr.Err != "", "trial %d cand %d", trial, i)
		}
	}
	_, _, err := pick([]Setting{{}}, func(Setting) (float64, error) { return math.NaN(), nil })
	assert.Error(t, err, "a NaN time is not kept")
}

// A cached choice reads back under its own key only; a damaged or foreign
// file is a miss.
func TestChoiceCache(t *testing.T) {
	dir := t.TempDir()
	key := ChoiceKey{Device: "NVIDIA H200", Step: "fast", Class: 1024, Steps: 24, Source: "ab"}
	c := Choice{Key: key, N: 1024, Setting: Setting{Tile: 256, Defines: []Define{{"FAST_WX", "16"}}}, Ms: 2.5,
		Tried: []Tried{{Setting: "default", Ms: 2.6}, {Setting: "FAST_WX=16,tile=256", Ms: 2.5}}}
	require.NoError(t, SaveChoice(dir, c))
	got, ok := LoadChoice(dir, key)
	require.True(t, ok)
	assert.True(t, got.Cached)
	got.Cached = false
	assert.Equal(t, c, got)
	for _, other := range []ChoiceKey{
		{Device: "NVIDIA H100", Step: "fast", Class: 1024, Steps: 24, Source: "ab"},
		{Device: "NVIDIA H200", Step: "fast", Class: 512, Steps: 24, Source: "ab"},
		{Device: "NVIDIA H200", Step: "fast", Class: 1024, Steps: 1, Source: "ab"},
		{Device: "NVIDIA H200", Step: "fast", Class: 1024, Steps: 24, Source: "cd"},
	} {
		_, ok := LoadChoice(dir, other)
		assert.False(t, ok, "%+v", other)
	}
	// A file of the key's name that holds another key, or no JSON.
	require.NoError(t, os.WriteFile(filepath.Join(dir, key.file()), []byte("{"), 0o644))
	_, ok = LoadChoice(dir, key)
	assert.False(t, ok)
	c2 := c
	c2.Key.Source = "zz"
	b := fmt.Sprintf(`{"key":{"device":%q,"step":"fast","size_class":1024,"steps":24,"source_sha256":"zz"}}`, key.Device)
	require.NoError(t, os.WriteFile(filepath.Join(dir, key.file()), []byte(b), 0o644))
	_, ok = LoadChoice(dir, key)
	assert.False(t, ok)
}

func TestTuneModes(t *testing.T) {
	for _, s := range []string{"cache", "off", "fresh"} {
		m, err := ParseTuneMode(s)
		require.NoError(t, err)
		assert.Equal(t, s, m.String())
	}
	_, err := ParseTuneMode("always")
	assert.Error(t, err)
	t.Setenv(EnvTune, "")
	m, err := DefaultTuneMode()
	require.NoError(t, err)
	assert.Equal(t, TuneCache, m)
	t.Setenv(EnvTune, "off")
	m, err = DefaultTuneMode()
	require.NoError(t, err)
	assert.Equal(t, TuneOff, m)
	t.Setenv(EnvTune, "bogus")
	_, err = DefaultTuneMode()
	assert.Error(t, err)
	t.Setenv(EnvTuneDir, "/somewhere")
	d, err := ChoiceDir()
	require.NoError(t, err)
	assert.Equal(t, "/somewhere", d)
}

// On the fake (every launch takes 1 ms and computes nothing, so the check
// is loosened to pass): the choice launches every candidate's kernel,
// keeps the first among equals (the default), caches it, reads it back
// without launching anything, and TuneOff launches nothing. The check's
// gate is TestPickFastestThatPassed's, and TestGPUChoice's on a device.
func TestChooseOnTheFake(t *testing.T) {
	f, d := withFake(t)
	dir := t.TempDir()
	for _, p := range tunedSteps(t) {
		cs, err := Candidates(p)
		require.NoError(t, err)
		sp := ChooseSpec{N: 12, Steps: 12, Warmup: 0, Reps: 1, Tolerance: math.MaxFloat32, Mode: TuneFresh, Dir: dir, Seed: 1}
		f.Reset()
		c, err := d.Choose(p, sp)
		require.NoError(t, err, p.Name)
		assert.Equal(t, "default", c.Setting.String(), p.Name)
		assert.False(t, c.Cached)
		assert.Equal(t, d.Props().Name, c.Key.Device)
		assert.Equal(t, 16, c.Key.Class)
		// Every candidate whose k divides 12 was tried.
		want := 0
		for _, s := range cs {
			q, err := p.Configure(lab.Config{Tile: s.Tile})
			require.NoError(t, err)
			if 12%q.Step.StepsPerPass(q.Config) == 0 {
				want++
			}
		}
		assert.Len(t, c.Tried, want, p.Name)
		entries := 0
		for _, l := range f.Launches() {
			if l.Entry.Name == p.Step.CUDA.Entry || l.Entry.Name == "fast4" {
				entries++
			}
		}
		assert.Positive(t, entries, p.Name)

		f.Reset()
		sp.Mode = TuneCache
		again, err := d.Choose(p, sp)
		require.NoError(t, err)
		assert.True(t, again.Cached, p.Name)
		assert.Equal(t, c.Setting.String(), again.Setting.String())
		assert.Empty(t, f.Launches(), "%s: a cached choice launches nothing", p.Name)

		sp.Mode = TuneOff
		off, err := d.Choose(p, sp)
		require.NoError(t, err)
		assert.Equal(t, "default", off.Setting.String())
		assert.Empty(t, f.Launches())

	}
}

// A cache file of any content reads back as a choice of its own key with
// C identifiers for defines, or as a miss; it never panics.
func FuzzLoadChoice(f *testing.F) {
	key := ChoiceKey{Device: "NVIDIA H200", Step: "fast", Class: 1024, Steps: 24, Source: "ab"}
	f.Add([]byte(`{"key":{"device":"NVIDIA H200","step":"fast","size_class":1024,"steps":24,"source_sha256":"ab"},"setting":{"tile":256}}`))
	f.Add([]byte(`{"key":{"device":"NVIDIA H200","step":"fast","size_class":1024,"steps":24,"source_sha256":"ab"},"setting":{"defines":[{"Name":"X;","Value":"1"}]}}`))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, key.file()), b, 0o644))
		c, ok := LoadChoice(dir, key)
		if !ok {
			return
		}
		assert.Equal(t, key, c.Key)
		for _, d := range c.Setting.Defines {
			assert.True(t, validIdent(d.Name), d.Name)
		}
	})
}
