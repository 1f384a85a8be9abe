package fig

import (
	"errors"
	"fmt"
	"strings"

	"gonum.org/v1/plot/vg"
)

// Inputs are the data some figures draw besides the lab's models.
type Inputs struct {
	// Bench holds the results of a `stencil bench -json` run; nil draws the
	// bandwidth chart from the model instead.
	Bench *Bench
}

// Figure describes one figure of the course and how to draw it.
type Figure struct {
	Name    string    // file name without extension, e.g. "sine"
	Func    string    // the function of this package that draws it, e.g. "Sine"
	Chapter string    // the chapter's figure it follows, e.g. "8.1"; "" for the lab's own
	About   string    // one line on what it shows
	Width   vg.Length // default size
	Height  vg.Length
	Make    func(in Inputs) (Drawer, error)
}

// ErrUnknownFigure is wrapped by Lookup's error for a name not in All.
var ErrUnknownFigure = errors.New("unknown figure")

func drawer[T Drawer](f func() (T, error)) func(Inputs) (Drawer, error) {
	return func(Inputs) (Drawer, error) {
		d, err := f()
		if err != nil {
			return nil, err
		}
		return d, nil
	}
}

// All returns the course's figures in the order of the chapter.
func All() []Figure {
	return append([]Figure{
		{Name: "sine", Func: "Sine", Chapter: "8.1", Width: Wide, Height: 6.2 * vg.Inch,
			About: "sin x on [0, π], a grid of spacing π/6 and the seven discrete values",
			Make:  drawer(Sine)},
		{Name: "stencils_1d", Func: "Stencils1D", Chapter: "8.2", Width: Wide, Height: 4.9 * vg.Inch,
			About: "the 1D three-, five- and seven-point stencils with their first- and second-derivative weights",
			Make:  drawer(Stencils1D)},
		{Name: "stencils_2d_3d", Func: "StencilShapes", Chapter: "8.3", Width: Wide, Height: 7 * vg.Inch,
			About: "the 2D five- and nine-point and the 3D seven- and thirteen-point stencils, each point labelled with its coefficient",
			Make:  drawer(StencilShapes)},
		{Name: "grid_storage", Func: "GridStorage", Chapter: "8.4", Width: Wide, Height: 3.6 * vg.Inch,
			About: "a 4×4 grid with a five-point stencil, its output point and its row-major storage",
			Make:  drawer(GridStorage)},
		{Name: "boundary", Func: "Boundary", Chapter: "8.5", Width: Wide, Height: 4.6 * vg.Inch,
			About: "boundary cells keep their boundary conditions; a sweep computes only the interior",
			Make:  drawer(Boundary)},
		{Name: "tiles", Func: "Tiles", Chapter: "8.7", Width: Wide, Height: 3.9 * vg.Inch,
			About: "one block's input tile with its halo, in global and shared memory, and its output tile",
			Make:  drawer(Tiles)},
		{Name: "coarsening", Func: "Coarsening", Chapter: "8.9", Width: Wide, Height: 5.2 * vg.Inch,
			About: "thread coarsening in z: one block's column of output planes, computed one plane per iteration",
			Make:  drawer(Coarsening)},
		{Name: "register_tiling", Func: "RegisterTiling", Chapter: "8.11", Width: Wide, Height: 4.6 * vg.Inch,
			About: "after the first iteration: inPrev, inCurr and inNext in shared memory (coarsened) or registers (register tiled)",
			Make:  drawer(RegisterTiling)},
		{Name: "warp_sectors", Func: "WarpSectors", Width: Wide, Height: 3.3 * vg.Inch,
			About: "one warp's load of in[p−1] in the basic kernel: the row fragments it reads, coloured by 32-byte sector, for 8×8×8 and 32×8×1 blocks",
			Make:  drawer(WarpSectors)},
		{Name: "shared_banks", Func: "SharedBanks", Width: Wide, Height: 4.6 * vg.Inch,
			About: "a warp reading one column of a 32×32 shared tile, by bank: a 32-way conflict, and none once each row is padded by one float",
			Make:  drawer(SharedBanks)},
		{Name: "intensity", Func: "Intensity", Chapter: "slides", Width: Wide, Height: 5 * vg.Inch,
			About: "OP/B against the tile T for the four kernels, with the thread and shared-memory limits and the simulator's counts",
			Make: func(Inputs) (Drawer, error) {
				m, err := SimulatedIntensity(SimN)
				if err != nil {
					return nil, err
				}
				return Intensity(m)
			}},
		{Name: "intensity_temporal", Func: "IntensityTemporal", Width: Wide, Height: 4.6 * vg.Inch,
			About: "OP/B against k, the time steps of one pass of temporal blocking: performed and useful, with the simulator's counts",
			Make: func(Inputs) (Drawer, error) {
				m, err := SimulatedTemporalIntensity(SimN)
				if err != nil {
					return nil, err
				}
				return IntensityTemporal(m)
			}},
		{Name: "bandwidth", Func: "Bandwidth", Width: Wide, Height: 4.2 * vg.Inch,
			About: "effective bandwidth and roofline of the kernels on the GPU, from `stencil bench -json` (the model until measured)",
			Make:  func(in Inputs) (Drawer, error) { return Bandwidth(in.Bench) }},
		{Name: "convergence", Func: "Convergence", Width: Wide, Height: 4 * vg.Inch,
			About: "error of the 1D derivative stencils against h, log-log: slopes 2, 4 and 6",
			Make:  drawer(Convergence)},
		{Name: "slabs", Func: "Slabs", Width: Wide, Height: 5.6 * vg.Inch,
			About: "a grid split into z-slabs over three ranks: each rank's owned planes, its halo planes and the messages of the exchange that fill them",
			Make:  func(Inputs) (Drawer, error) { return Slabs(SlabsNZ, SlabsRanks, SlabsHalo) }},
	}, append(threadFigures(), zMarchFigures()...)...)
}

// Names returns the names of all figures, in the order of All.
func Names() []string {
	var ns []string
	for _, f := range All() {
		ns = append(ns, f.Name)
	}
	return ns
}

// Lookup returns the figure with the given name.
func Lookup(name string) (Figure, error) {
	for _, f := range All() {
		if f.Name == name {
			return f, nil
		}
	}
	return Figure{}, fmt.Errorf("fig: figure %q: %w (known: %s)", name, ErrUnknownFigure, strings.Join(Names(), ", "))
}

// Show draws the figure at its default size with no bench data and
// displays it in the notebook.
func (f Figure) Show() error {
	if f.Make == nil {
		return fmt.Errorf("fig: figure %q has no drawing function: %w", f.Name, ErrRender)
	}
	d, err := f.Make(Inputs{})
	if err != nil {
		return err
	}
	return Show(d, f.Width, f.Height)
}
