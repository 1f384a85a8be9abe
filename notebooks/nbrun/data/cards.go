package data

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"stencillab.dev/lab/benchfile"
)

// CardBenchGlob names the benches of the fast sweep and the temporal step
// on each card, relative to the repository's root: one run of `stencil
// bench -n N -steps 24 -kernels fast,temporal` per card and grid side,
// each in its own process, every output checked (docs/gpu.md, "Checked on
// both cards, 24 steps").
const CardBenchGlob = "docs/temporal_*_24steps.json"

// MarchDefine is the define that picks the temporal step's march (the
// order in which a block keeps its planes in registers and shared memory;
// gpu/temporal.go and cuda/temporal.cu), 0, 1 or 2.
const MarchDefine = "TB_V"

// CardRun is one card at one grid side in the benches of CardBenchGlob:
// the copies of that bench and the default configuration of the fast and
// the temporal step. File is "" when no bench holds the card at N; Fast or
// Temporal is nil when the bench holds no run of that step at its default.
type CardRun struct {
	Card           string         // the bench's device field
	File           string         // the bench, relative to the repository's root
	N              int            // the grid's side
	CopyMs         float64        // one float4 copy of the N³ grid, milliseconds; 0 when not recorded
	InteriorCopyMs float64        // one copy of the interior alone, milliseconds; 0 when not recorded
	Fast           *benchfile.Run // the fast sweep at its default
	Temporal       *benchfile.Run // the temporal step at its default (its march and k)
	// Marches are the runs of the temporal step at N whose defines are the
	// default's but for MarchDefine, the default among them, one per march
	// in increasing order; none when the default names no march.
	Marches []MarchRun
}

// MarchRun is the temporal step with one march.
type MarchRun struct {
	March int           // the value of MarchDefine
	Run   benchfile.Run // the run
}

// Recorded reports whether a bench holds the card at N.
func (c CardRun) Recorded() bool { return c.File != "" }

// TemporalMarch returns the march of the temporal step's default run, and
// false when there is none or its defines do not name one.
func (c CardRun) TemporalMarch() (int, bool) {
	if c.Temporal == nil {
		return 0, false
	}
	return runMarch(*c.Temporal)
}

// MarchSpeedup returns the points per second of the temporal step with
// march v (the default's defines otherwise) over the fast sweep's, and
// false when the bench holds no such run or no fast sweep.
func (c CardRun) MarchSpeedup(v int) (float64, bool) {
	if c.Fast == nil {
		return 0, false
	}
	for _, m := range c.Marches {
		if m.March == v {
			return m.Run.PointsPerSecond() / c.Fast.PointsPerSecond(), true
		}
	}
	return 0, false
}

// runMarch returns the march a run's defines name, and false when they
// name none or name it twice or not as a whole number.
func runMarch(r benchfile.Run) (int, bool) {
	v, found := 0, false
	for _, d := range r.Defines {
		name, val, ok := strings.Cut(d, "=")
		if !ok || strings.TrimSpace(name) != MarchDefine {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || found {
			return 0, false
		}
		v, found = n, true
	}
	return v, found
}

// withoutMarch returns a run's defines less MarchDefine, in their order.
func withoutMarch(r benchfile.Run) []string {
	var out []string
	for _, d := range r.Defines {
		if name, _, _ := strings.Cut(d, "="); strings.TrimSpace(name) != MarchDefine {
			out = append(out, strings.TrimSpace(d))
		}
	}
	return out
}

// marchRuns returns the runs of the temporal step in b at the default run
// def's side and tile whose defines are def's but for MarchDefine, one per
// march (def for its own, else the first of a march the bench repeats), in
// increasing march.
func marchRuns(b *benchfile.File, def benchfile.Run) []MarchRun {
	dv, ok := runMarch(def)
	if !ok {
		return nil
	}
	want := withoutMarch(def)
	out := []MarchRun{{March: dv, Run: def}}
	for _, r := range b.Results {
		if r.Kernel != def.Kernel || r.N != def.N || r.Tile != def.Tile || !slices.Equal(withoutMarch(r), want) {
			continue
		}
		v, ok := runMarch(r)
		if !ok || slices.ContainsFunc(out, func(m MarchRun) bool { return m.March == v }) {
			continue
		}
		out = append(out, MarchRun{March: v, Run: r})
	}
	slices.SortFunc(out, func(a, b MarchRun) int { return a.March - b.March })
	return out
}

// Speedup returns the temporal run's points per second over the fast
// sweep's, and false when either is missing.
func (c CardRun) Speedup() (float64, bool) {
	if c.Fast == nil || c.Temporal == nil {
		return 0, false
	}
	return c.Temporal.PointsPerSecond() / c.Fast.PointsPerSecond(), true
}

// CardRuns reads every bench of CardBenchGlob and returns one CardRun per
// card and grid side, cards in the order of their names and sides
// increasing: each card gets a row at every side any bench holds, one it
// was not run at having no File. None while nothing is recorded; a bench
// that cannot be read, names no device or repeats a card and side another
// bench holds is an error.
func CardRuns() ([]CardRun, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	return cardRunsIn(root)
}

// cardRunsIn is CardRuns in the repository at root.
func cardRunsIn(root string) ([]CardRun, error) {
	files, err := globIn(root, CardBenchGlob)
	if err != nil {
		return nil, err
	}
	type key struct {
		card string
		n    int
	}
	found := map[key]CardRun{}
	var cards []string
	var ns []int
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return nil, fmt.Errorf("nbrun: %s: %w", f, err)
		}
		rel = filepath.ToSlash(rel)
		b, err := loadBench(f)
		if err != nil {
			return nil, fmt.Errorf("nbrun: %s: %w", rel, err)
		}
		card := strings.TrimSpace(b.Device)
		if card == "" {
			return nil, fmt.Errorf("nbrun: %s names no device: a bench of %s must say which card it ran on: %w", rel, CardBenchGlob, benchfile.ErrInvalid)
		}
		if !slices.Contains(cards, card) {
			cards = append(cards, card)
		}
		for _, n := range benchSides(b) {
			k := key{card, n}
			if prev, ok := found[k]; ok {
				return nil, fmt.Errorf("nbrun: %s and %s both hold %s at N = %d: keep one bench per card and side: %w",
					prev.File, rel, card, n, benchfile.ErrInvalid)
			}
			c := CardRun{Card: card, File: rel, N: n}
			for _, cp := range b.Copies {
				if cp.N == n {
					c.CopyMs = cp.MedianMs
				}
			}
			for _, cp := range b.Interior {
				if cp.N == n {
					c.InteriorCopyMs = cp.MedianMs
				}
			}
			if r, ok := defaultRun(b, "fast", n); ok {
				c.Fast = &r
			}
			if r, ok := defaultRun(b, "temporal", n); ok {
				c.Temporal = &r
				c.Marches = marchRuns(b, r)
			}
			found[k] = c
			if !slices.Contains(ns, n) {
				ns = append(ns, n)
			}
		}
	}
	slices.Sort(cards)
	slices.Sort(ns)
	var out []CardRun
	for _, card := range cards {
		for _, n := range ns {
			c, ok := found[key{card, n}]
			if !ok {
				c = CardRun{Card: card, N: n}
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// benchSides returns the grid sides of a bench's results, once each.
func benchSides(b *benchfile.File) []int {
	var ns []int
	for _, r := range b.Results {
		if !slices.Contains(ns, r.N) {
			ns = append(ns, r.N)
		}
	}
	return ns
}

// defaultRun returns the run of a step at its default configuration (its
// label the step's name) at n.
func defaultRun(b *benchfile.File, kernel string, n int) (benchfile.Run, bool) {
	for _, r := range b.Results {
		if r.N == n && r.Kernel == kernel && r.Label == kernel {
			return r, true
		}
	}
	return benchfile.Run{}, false
}

// CardFastTable formats the fast sweep of CardRuns, one table per card
// named by its bench's device field: per grid side the time steps of each
// run, one float4 copy of the grid, one run of the fast sweep and the
// sweep's shares of the copy's and the interior copy's bandwidth.
func CardFastTable(cs []CardRun) string {
	return cardTable(cs, false)
}

// CardTemporalTable formats CardRuns as CardFastTable does, and adds the
// temporal step at its default: its time, its share of the copy (above
// 100 % where a pass reads and writes each point less than once a time
// step), its points per second over the fast sweep's and its march; then,
// one column for each march any card ran with the default's other
// defines, that march's points per second over the fast sweep's.
func CardTemporalTable(cs []CardRun) string {
	return cardTable(cs, true)
}

func cardTable(cs []CardRun, temporal bool) string {
	if len(cs) == 0 {
		return fmt.Sprintf("no bench on a card recorded yet (%s)\n", CardBenchGlob)
	}
	var marches []int
	for _, c := range cs {
		for _, m := range c.Marches {
			if !slices.Contains(marches, m.March) {
				marches = append(marches, m.March)
			}
		}
	}
	slices.Sort(marches)
	var s strings.Builder
	ms := func(x float64) string {
		if x <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.4f", x)
	}
	pct := func(x float64) string {
		if x <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", x)
	}
	for i, c := range cs {
		if i == 0 || c.Card != cs[i-1].Card {
			if i > 0 {
				s.WriteString("\n")
			}
			card := c.Card
			var files []string
			for _, d := range cs {
				if d.Card == card && d.Recorded() && !slices.Contains(files, d.File) {
					files = append(files, d.File)
				}
			}
			fmt.Fprintf(&s, "%s (%s)\n", card, strings.Join(files, ", "))
			fmt.Fprintf(&s, "%5s %5s %8s %9s %7s %7s", "N", "steps", "copy ms", "fast ms", "% copy", "% int")
			if temporal {
				fmt.Fprintf(&s, " %11s %7s %7s %5s", "temporal ms", "% copy", "× fast", "march")
				for _, v := range marches {
					fmt.Fprintf(&s, " %6s", fmt.Sprintf("m%d ×", v))
				}
			}
			s.WriteString("\n")
		}
		if !c.Recorded() {
			fmt.Fprintf(&s, "%5d  none recorded: no bench of %s holds this card at N = %d\n", c.N, CardBenchGlob, c.N)
			continue
		}
		steps := "-"
		switch {
		case c.Fast != nil:
			steps = fmt.Sprint(c.Fast.TimeSteps())
		case c.Temporal != nil:
			steps = fmt.Sprint(c.Temporal.TimeSteps())
		}
		fastMs, fastPct, fastInt := "none", "-", "-"
		if c.Fast != nil {
			fastMs, fastPct, fastInt = ms(c.Fast.MedianMs), pct(c.Fast.Pct()), pct(c.Fast.PctInterior)
		}
		fmt.Fprintf(&s, "%5d %5s %8s %9s %7s %7s", c.N, steps, ms(c.CopyMs), fastMs, fastPct, fastInt)
		if temporal {
			tMs, tPct, speed, march := "none", "-", "-", "-"
			if c.Temporal != nil {
				tMs, tPct = ms(c.Temporal.MedianMs), pct(c.Temporal.Pct())
			}
			if sp, ok := c.Speedup(); ok {
				speed = fmt.Sprintf("%.2f", sp)
			}
			if v, ok := c.TemporalMarch(); ok {
				march = fmt.Sprint(v)
			}
			fmt.Fprintf(&s, " %11s %7s %7s %5s", tMs, tPct, speed, march)
			for _, v := range marches {
				x := "-"
				if sp, ok := c.MarchSpeedup(v); ok {
					x = fmt.Sprintf("%.2f", sp)
				}
				fmt.Fprintf(&s, " %6s", x)
			}
		}
		s.WriteString("\n")
	}
	s.WriteString("\ncopy ms: one float4 copy of the N³ grid; fast ms")
	if temporal {
		s.WriteString(", temporal ms")
	}
	s.WriteString(": one run of the time steps shown.\n% copy, % int: the share of the float4 copy's and of the interior copy's bandwidth,\n" +
		"counting 8 bytes per interior point and time step.\n")
	if temporal {
		s.WriteString("× fast: the temporal step's points per second over the fast sweep's; march: the default's " + MarchDefine + ".\n")
		if len(marches) > 0 {
			s.WriteString("m0 ×, m1 ×, …: × fast of the temporal step with that march and the default's other defines, in the same bench.\n")
		}
	}
	return s.String()
}
