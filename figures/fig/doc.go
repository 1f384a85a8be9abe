// Package fig draws the figures of Stencil Lab with gonum/plot: the
// chapter's figures 8.1 to 8.11 redrawn in the lab's own style, the
// arithmetic-intensity curves of the lecture slides, the convergence of the
// 1D derivative stencils and the measured bandwidth of the GPU kernels.
//
// Every figure is one exported function that returns something that draws
// itself on a gonum/plot canvas: a *plot.Plot for charts, a *Diagram for
// schematic drawings, or a *Panels of either. Notebooks call the same
// functions as the generator, so a notebook shows exactly the figure that
// the course shows.
//
// The package is a library; the command in the parent folder,
//
//	go run ./figures [-out DIR] [-only NAME]
//
// writes an SVG and a PNG of every figure listed by All. A Go folder holds
// one package, and go run needs package main, so the drawing functions live
// here in stencillab.dev/figures/fig and the generator in
// stencillab.dev/figures.
//
// In a GoNB notebook, a course figure by name, at its own size:
//
//	import "stencillab.dev/figures/fig"
//
//	f, err := fig.Lookup("intensity")
//	if err != nil { ... }
//	err = f.Show()
//
// or a drawing function directly, at any size:
//
//	p, err := fig.Intensity(nil) // the model only, no simulated points
//	if err != nil { ... }
//	err = fig.Show(p, fig.Wide, fig.Tall)
//
// PNG returns the bytes Show displays, for animations that build frames.
//
// Output is deterministic: the fonts are gonum/plot's embedded Liberation
// fonts, data are computed or drawn from seeded generators, and nothing
// depends on the clock or on map order.
package fig
