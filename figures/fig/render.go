package fig

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Drawer is anything that draws itself on a canvas: a *plot.Plot, a
// *Diagram or *Panels.
type Drawer interface {
	Draw(c draw.Canvas)
}

// ErrRender is wrapped by every error about a figure that cannot be drawn.
var ErrRender = errors.New("cannot render figure")

// MaxSide bounds a figure's width and height, so that a typo in a notebook
// (w = 7000*vg.Inch) is an error rather than a huge allocation.
const MaxSide = 60 * vg.Inch

func checkSize(d Drawer, w, h vg.Length, dpi int) error {
	if d == nil {
		return fmt.Errorf("fig: nil figure: %w", ErrRender)
	}
	if !(w > 0 && h > 0) || w > MaxSide || h > MaxSide {
		return fmt.Errorf("fig: size %.4g×%.4g points: each side must be in (0, %g]: %w", float64(w), float64(h), float64(MaxSide), ErrRender)
	}
	if dpi < 1 || dpi > 1200 {
		return fmt.Errorf("fig: %d DPI: must be 1 to 1200: %w", dpi, ErrRender)
	}
	if float64(w/vg.Inch)*float64(h/vg.Inch)*float64(dpi*dpi) > 1<<27 {
		return fmt.Errorf("fig: %.4g×%.4g in at %d DPI exceeds %d pixels: %w", float64(w/vg.Inch), float64(h/vg.Inch), dpi, 1<<27, ErrRender)
	}
	return nil
}

// drawSafe draws d on a white background and turns a panic inside
// gonum/plot (a log axis over a non-positive range, say) into an error.
func drawSafe(d Drawer, c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("fig: drawing failed: %v: %w", r, ErrRender)
		}
	}()
	c.SetColor(color.White)
	var bg vg.Path
	bg.Move(c.Min)
	bg.Line(vg.Point{X: c.Max.X, Y: c.Min.Y})
	bg.Line(c.Max)
	bg.Line(vg.Point{X: c.Min.X, Y: c.Max.Y})
	bg.Close()
	c.Fill(bg)
	d.Draw(c)
	return nil
}

// raster draws d on a w×h raster canvas at dpi dots per inch.
func raster(d Drawer, w, h vg.Length, dpi int) (*vgimg.Canvas, error) {
	if err := checkSize(d, w, h, dpi); err != nil {
		return nil, err
	}
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	if err := drawSafe(d, draw.New(c)); err != nil {
		return nil, err
	}
	return c, nil
}

// Image renders d as a w×h image at dpi dots per inch.
func Image(d Drawer, w, h vg.Length, dpi int) (image.Image, error) {
	c, err := raster(d, w, h, dpi)
	if err != nil {
		return nil, err
	}
	return c.Image(), nil
}

// PNG renders d as a w×h PNG at dpi dots per inch. The bytes depend only
// on d, w, h and dpi, so notebook animations can use them as frames.
func PNG(d Drawer, w, h vg.Length, dpi int) ([]byte, error) {
	c, err := raster(d, w, h, dpi)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("fig: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG renders d as a w×h SVG document. Text refers to the Liberation
// fonts by name rather than embedding them.
func SVG(d Drawer, w, h vg.Length) ([]byte, error) {
	if err := checkSize(d, w, h, 72); err != nil {
		return nil, err
	}
	c := vgsvg.New(w, h)
	if err := drawSafe(d, draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("fig: encoding SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// Panels lays out several figures in a grid of Cols columns, filled row
// by row, with an optional title above. With Align set and every item a
// *plot.Plot, their data areas are aligned with plot.Align.
type Panels struct {
	Title string
	Cols  int
	Align bool
	Items []Drawer
}

// Draw draws the panels on c.
func (p *Panels) Draw(c draw.Canvas) {
	if p.Title != "" {
		ts := titleStyle()
		c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 4}, p.Title)
		c = draw.Crop(c, 0, 0, 0, -(ts.Height(p.Title) + 10))
	}
	n := len(p.Items)
	if n == 0 {
		return
	}
	c = draw.Crop(c, 4, -4, 4, -4)
	cols := max(1, min(p.Cols, n))
	rows := (n + cols - 1) / cols
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 14, PadY: 14}
	plots := make([][]*plot.Plot, rows)
	all := p.Align
	for r := range rows {
		plots[r] = make([]*plot.Plot, cols)
		for k := range cols {
			i := r*cols + k
			if i >= n {
				continue
			}
			pl, ok := p.Items[i].(*plot.Plot)
			if !ok {
				all = false
			}
			plots[r][k] = pl
		}
	}
	if all {
		cs := plot.Align(plots, tiles, c)
		for r := range rows {
			for k := range cols {
				if plots[r][k] != nil {
					plots[r][k].Draw(cs[r][k])
				}
			}
		}
		return
	}
	for i, it := range p.Items {
		if it != nil {
			it.Draw(tiles.At(c, i%cols, i/cols))
		}
	}
}
