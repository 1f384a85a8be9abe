package fig

import (
	"image/color"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Standard sizes. Every figure has its own size in All; these are the
// common ones, for notebooks that draw their own plots in the lab's style.
const (
	// Wide is the width of a full-width figure: 7 inches.
	Wide = 7 * vg.Inch
	// Tall is the height of a one-row chart: 4.4 inches.
	Tall = 4.4 * vg.Inch
	// DPI is the resolution of the committed PNG files.
	DPI = 150
	// ShowDPI is the resolution Show renders PNGs at in a notebook.
	ShowDPI = 110
)

func rgb(hex uint32) color.NRGBA {
	return color.NRGBA{R: uint8(hex >> 16), G: uint8(hex >> 8), B: uint8(hex), A: 0xff}
}

// The lab's palette, built on the Okabe–Ito colours so that the figures
// read in every kind of colour vision. Each role has a strong colour for
// lines and text and a pale one for filling cells that carry text.
var (
	Ink      = rgb(0x222222) // text and outlines
	Muted    = rgb(0x7a7a7a) // secondary text, inactive lines
	CellFill = rgb(0xf3f3f3) // an ordinary grid cell
	CellLine = rgb(0x9a9a9a) // its outline

	Vermillion = rgb(0xd55e00) // the output point, the centre of a stencil
	Blue       = rgb(0x0072b2) // neighbours of a stencil
	Orange     = rgb(0xe69f00) // the halo of a tile
	Green      = rgb(0x009e73) // shared memory
	Purple     = rgb(0xcc79a7) // registers
	Sky        = rgb(0x56b4e9) // a second series
	Yellow     = rgb(0xf0e442) // highlights

	PaleVermillion = rgb(0xf6c3a1)
	PaleBlue       = rgb(0xb3d4ec)
	PaleOrange     = rgb(0xfbe0a6)
	PaleGreen      = rgb(0xa8ddc9)
	PalePurple     = rgb(0xeccbe0)
	PaleGrey       = rgb(0xd9d9d9) // boundary cells, finished work
)

// Series are the colours of successive curves in a chart.
var Series = []color.Color{Blue, Vermillion, Green, Purple, Orange, Sky, Ink}

// Face returns the lab's font, Liberation Sans, at size points.
func Face(size vg.Length, bold, italic bool) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	if bold {
		f.Weight = xfont.WeightBold
	}
	if italic {
		f.Style = xfont.StyleItalic
	}
	return f
}

// TextStyle returns a text style in the lab's font.
func TextStyle(size vg.Length, clr color.Color) draw.TextStyle {
	return draw.TextStyle{Color: clr, Font: Face(size, false, false), Handler: plot.DefaultTextHandler}
}

// NewPlot returns an empty plot in the lab's style: sans-serif text, a
// bold title, light grid lines and no legend border.
func NewPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = Face(12, true, false)
	p.Title.TextStyle.Color = Ink
	p.Title.Padding = 6
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = Face(10.5, false, false)
		a.Label.TextStyle.Color = Ink
		a.Tick.Label.Font = Face(9, false, false)
		a.Tick.Label.Color = Ink
		a.LineStyle.Color = Ink
		a.Tick.LineStyle.Color = Ink
		a.Padding = 2
	}
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.TextStyle.Font = Face(9, false, false)
	p.Legend.TextStyle.Color = Ink
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.Padding = 2
	p.Legend.XOffs = 6
	p.Legend.YOffs = -6
	return p
}

func lineStyle(clr color.Color, width vg.Length, dashed bool) draw.LineStyle {
	ls := draw.LineStyle{Color: clr, Width: width}
	if dashed {
		ls.Dashes = []vg.Length{4, 3}
	}
	return ls
}
