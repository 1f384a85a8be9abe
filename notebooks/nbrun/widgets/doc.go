// Package widgets is what a notebook cell shows live through GoNB's gonbui:
// a slider that redraws a figure with a busy sign while it draws
// (SliderFigure), the animations of a z-march and a halo exchange, the
// threads of a step, and Notebook, the writer to the cell's output.
package widgets
