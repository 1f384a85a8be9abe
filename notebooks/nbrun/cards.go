package nbrun

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"stencillab.dev/lab/benchfile"
)

// This file is what notebooks 07 and 07b call to show the fast sweep and
// the temporal step on each card the lab was checked on: one bench per
// card and grid side, every output compared with the reference.

// CardBenchGlob names the benches of the fast sweep and the temporal step
// on each card, relative to the repository's root: one run of `stencil
// bench -n N -steps 24 -kernels fast,temporal` per card and grid side,
// each in its own process, every output checked (docs/gpu.md, "Checked on
// both cards, 24 steps").
const CardBenchGlob = "docs/temporal_*_24steps.json"

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
}

// Recorded reports whether a bench holds the card at N.
func (c CardRun) Recorded() bool { return c.File != "" }

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
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(CardBenchGlob)))
	if err != nil {
		return nil, fmt.Errorf("nbrun: %s: %w", CardBenchGlob, err)
	}
	slices.Sort(files)
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
		b, err := benchfile.Load(f)
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
// step) and its points per second over the fast sweep's.
func CardTemporalTable(cs []CardRun) string {
	return cardTable(cs, true)
}

func cardTable(cs []CardRun, temporal bool) string {
	if len(cs) == 0 {
		return fmt.Sprintf("no bench on a card recorded yet (%s)\n", CardBenchGlob)
	}
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
				fmt.Fprintf(&s, " %11s %7s %7s", "temporal ms", "% copy", "× fast")
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
			tMs, tPct, speed := "none", "-", "-"
			if c.Temporal != nil {
				tMs, tPct = ms(c.Temporal.MedianMs), pct(c.Temporal.Pct())
			}
			if sp, ok := c.Speedup(); ok {
				speed = fmt.Sprintf("%.2f", sp)
			}
			fmt.Fprintf(&s, " %11s %7s %7s", tMs, tPct, speed)
		}
		s.WriteString("\n")
	}
	s.WriteString("\ncopy ms: one float4 copy of the N³ grid; fast ms")
	if temporal {
		s.WriteString(", temporal ms")
	}
	s.WriteString(": one run of the time steps shown.\n% copy, % int: the share of the float4 copy's and of the interior copy's bandwidth,\n" +
		"counting 8 bytes per interior point and time step.\n")
	return s.String()
}
