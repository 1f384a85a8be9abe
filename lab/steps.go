package lab

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Step is one step of the lab, from the 1D derivative to 3D register tiling.
// A step keeps one name everywhere: its CUDA file (cuda/NAME.cu), its
// simulated kernel in this package, its gpu launcher and its CLI -kernel.
type Step struct {
	Name     string   // e.g. "five_point"
	Aliases  []string // other names the command line accepts
	Title    string   // a short human title
	Figure   string   // the chapter figure it follows, e.g. "8.8"
	Dim      int      // 1, 2 or 3
	Runs     string   // what it computes, in one sentence
	Notebook string   // the notebook that teaches it
	Tiled    bool     // whether a tile size (-tile) applies
}

// catalogue holds the steps below three dimensions, which the lab offers
// as library functions; the 3D steps come from Register3.
var catalogue = []Step{
	{Name: "derivative", Title: "1D derivative stencils", Figure: "8.2", Dim: 1,
		Runs: "central differences of radius 1–3 for the first and second derivative on a 1D grid", Notebook: "01_sine_and_derivatives"},
	{Name: "five_point", Title: "2D five-point stencil", Figure: "8.3A, 8.4", Dim: 2,
		Runs: "one sweep of the 2D five-point stencil over the interior of a 2D grid", Notebook: "02_stencils_and_grids"},
}

// Steps returns the lab's steps in teaching order: by the notebook that
// teaches them, lower dimensions first within one.
func Steps() []Step {
	all := slices.Clone(catalogue)
	for _, s := range Steps3() {
		all = append(all, s.Step)
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].Notebook < all[b].Notebook })
	return all
}

// ErrUnknown is wrapped by errors about an unknown step or backend.
var ErrUnknown = errors.New("unknown step or backend")

// canonical returns the step name an alias stands for, or name itself.
func canonical(name string) string {
	for _, s := range Steps() {
		if slices.Contains(s.Aliases, name) {
			return s.Name
		}
	}
	return name
}

// LookupStep returns the step with the given name or alias.
func LookupStep(name string) (Step, error) {
	name = canonical(name)
	all := Steps()
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name
	}
	return Step{}, fmt.Errorf("lab: step %q: %w%s (known: %s)", name, ErrUnknown, DidYouMean(name, names), strings.Join(names, ", "))
}
