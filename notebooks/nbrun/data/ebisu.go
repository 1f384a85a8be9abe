package data

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// EBISUGlob names the cards' comparisons of the lab with EBISU, the ICS'23
// temporal blocker, written by bench/peers-gpu.sh (one file a card).
const EBISUGlob = "docs/peers_*.json"

// EBISURun is one card's comparison: its table, one row per grid side and
// step count (bench/peers/ebisucheck's rows).
type EBISURun struct {
	Device string     `json:"device"`
	Rows   []EBISURow `json:"rows"`
}

// EBISURow is one grid side and step count: the lab's steps and EBISU's
// fastest gated run, in points per second, for the seven-point star
// (fast, temporal, 3d7pt) and the thirteen-point star (star13, temporal13,
// 3d13pt). A zero is a run that did not pass or did not launch.
type EBISURow struct {
	N              int     `json:"n"`
	Steps          int     `json:"steps"`
	Fast           float64 `json:"fast_points_per_second"`
	Temporal       float64 `json:"temporal_points_per_second"`
	EBISU          float64 `json:"ebisu_points_per_second"`
	EBISUVariant   string  `json:"ebisu_variant"`
	Star13         float64 `json:"star13_points_per_second"`
	Temporal13     float64 `json:"temporal13_points_per_second"`
	EBISU13        float64 `json:"ebisu13_points_per_second"`
	EBISU13Variant string  `json:"ebisu13_variant"`
}

// RecordedEBISU returns the comparisons of EBISUGlob; none while nothing
// is recorded.
func RecordedEBISU() ([]EBISURun, error) {
	files, err := repoGlob(EBISUGlob)
	if err != nil {
		return nil, err
	}
	var rs []EBISURun
	for _, f := range files {
		b, err := readData(f)
		if err != nil {
			return nil, fmt.Errorf("nbrun: %s: %w", filepath.Base(f), err)
		}
		var r EBISURun
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("nbrun: %s: %w", filepath.Base(f), err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// EBISUTable formats the comparisons: per card, grid side and star, the
// lab's single sweep and temporal step, EBISU's best gated run and the
// lab's faster step over it, in Gpoints/s; "-" where a side has no run.
func EBISUTable(rs []EBISURun) string {
	var s strings.Builder
	g := func(v float64) string {
		if v <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f", v/1e9)
	}
	for _, r := range rs {
		fmt.Fprintf(&s, "%s, Gpoints/s\n", r.Device)
		fmt.Fprintf(&s, "%5s %5s %-8s %12s %12s %7s  %-18s %10s\n", "N", "steps", "star", "lab sweep", "lab temporal", "EBISU", "EBISU's setting", "lab/EBISU")
		fmt.Fprintf(&s, "(the lab's sweep is fast or star13, its temporal step temporal or temporal13; lab/EBISU takes the faster)\n")
		for _, w := range r.Rows {
			for _, st := range []struct {
				name, sweep, temporal string
				sv, tv, ev            float64
				variant               string
			}{
				{"7-point", "fast", "temporal", w.Fast, w.Temporal, w.EBISU, w.EBISUVariant},
				{"13-point", "star13", "temporal13", w.Star13, w.Temporal13, w.EBISU13, w.EBISU13Variant},
			} {
				ratio, variant := "-", st.variant
				if st.ev > 0 {
					ratio = fmt.Sprintf("%.2f×", max(st.sv, st.tv)/st.ev)
				} else {
					variant = "none passed"
				}
				fmt.Fprintf(&s, "%5d %5d %-8s %12s %12s %7s  %-18s %10s\n", w.N, w.Steps, st.name,
					g(st.sv), g(st.tv), g(st.ev), variant, ratio)
			}
		}
	}
	return s.String()
}
