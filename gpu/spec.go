package gpu

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"stencillab.dev/cuda"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Steps3 returns the 3D seven-point steps the gpu backend runs, in
// teaching order: the lab's steps that have device code (lab.OnGPU).
func Steps3() []string { return lab.Names3(lab.OnGPU) }

// Sweeps3 returns the 3D steps the gpu backend runs that advance one time
// step a pass, the sweeps (lab.Step3.TimeSteps nil), in teaching order.
func Sweeps3() []string {
	return lab.Names3(func(s lab.Step3) bool { return lab.OnGPU(s) && s.TimeSteps == nil })
}

// DefaultTile returns the tile a 3D step uses when Options.Tile is 0: the
// lab's default for the step (lab.Step3.DefaultTile); 0 for a step whose
// tile the backend chooses per grid (fast: the planes each block marches
// through, chosen so that the blocks fill the GPU in whole waves).
func DefaultTile(step string) int {
	s, err := lab.LookupStep3(step)
	if err != nil {
		return 0
	}
	return s.DefaultTile
}

// Options configures the compilation and launch of a 3D step.
type Options struct {
	// Tile is the step's tile (lab.Step3.TileName): the block edge T of
	// basic (T×T×T blocks), IN_TILE_DIM of the tiled kernels, and for fast
	// the z planes each block marches through. 0 means the default (for
	// fast: chosen per grid to fill the GPU in whole waves).
	Tile int
	// Block, for a step whose block is free (lab.Step3.BlockShape), sets
	// the block shape instead of T×T×T.
	Block [3]int
	// Defines are further preprocessor defines. The fast kernel reads
	// FAST_MODE, FAST_BY, FAST_RY, FAST_WX, FAST_DEPTH, FAST_PREFETCH,
	// FAST_STREAM, FAST_L2PF, FAST_MINB, FAST_EDGE and FAST_PFD (see
	// cuda/fast.cu); the tile's own define is set through Tile.
	Defines []Define
}

// config3 is a resolved configuration of a 3D step: everything needed to
// compile it and to compute its launch for any grid.
type config3 struct {
	step    string
	desc    lab.Step3
	tile    int
	block   [3]int      // the block of a step whose block is free; zero otherwise
	defines []Define    // passed to NVRTC, in order
	fast    *fastParams // the fast step's tuning; nil for the others
	// temporal is the temporally blocked step's tuning; nil for the others.
	temporal *temporalParams
}

// newConfig3 validates o for a 3D step of the lab with device code, by
// name or alias, and fills in the defaults.
func newConfig3(step string, o Options) (config3, error) {
	s, err := lab.LookupStep3(step)
	if err != nil || !lab.OnGPU(s) {
		return config3{}, fmt.Errorf("gpu: no 3D step %q on the GPU (known: %s)", step, strings.Join(Steps3(), ", "))
	}
	if s.Geometry == nil && s.Name != tunedStep {
		return config3{}, fmt.Errorf("gpu: %s: no launch geometry: give the step one in lab (Step3.Geometry), or a tuning in the gpu package", s.Name)
	}
	b := sim.Dim3{X: o.Block[0], Y: o.Block[1], Z: o.Block[2]}
	if o.Block != [3]int{} && !s.BlockShape {
		return config3{}, fmt.Errorf("gpu: %s: a block shape applies only to a step whose block is free; %s's block follows from its %s", s.Name, s.Name, s.TileName)
	}
	if o.Block != [3]int{} {
		for i, v := range o.Block {
			if v < 1 {
				return config3{}, fmt.Errorf("gpu: %s: block %s: %c = %d must be at least 1", s.Name, dims(o.Block), "xyz"[i], v)
			}
		}
	}
	if o.Tile < 0 {
		return config3{}, fmt.Errorf("gpu: %s: tile %d must be positive", s.Name, o.Tile)
	}
	cfg, err := s.Resolve(lab.Config{Tile: o.Tile, Block: b})
	if err != nil {
		return config3{}, fmt.Errorf("gpu: %w", err)
	}
	c := config3{step: s.Name, desc: s, tile: cfg.Tile}
	if s.BlockShape {
		c.block = o.Block
		if c.block == [3]int{} {
			c.block = [3]int{c.tile, c.tile, c.tile}
		}
	}
	user := map[string]string{}
	for _, d := range o.Defines {
		if !validIdent(d.Name) {
			return config3{}, fmt.Errorf("gpu: %s: define %q is not a C identifier", s.Name, d.Name)
		}
		if (s.CUDA.TileDefine != "" && d.Name == s.CUDA.TileDefine) || d.Name == "FAST_CZ" {
			return config3{}, fmt.Errorf("gpu: %s: set %s through the tile, not a define", s.Name, d.Name)
		}
		if _, dup := user[d.Name]; dup {
			return config3{}, fmt.Errorf("gpu: %s: define %s given twice", s.Name, d.Name)
		}
		user[d.Name] = d.Value
	}
	if s.CUDA.TileDefine != "" {
		c.defines = append(c.defines, Define{s.CUDA.TileDefine, strconv.Itoa(c.tile)})
	}
	if s.Name == tunedStep {
		if err := configureFast(&c, user); err != nil {
			return config3{}, err
		}
	}
	if s.Name == temporalStep {
		if err := configureTemporal(&c, user); err != nil {
			return config3{}, err
		}
	}
	// Other defines pass through, sorted, for a notebook's experiments.
	var rest []Define
	for n, v := range user {
		rest = append(rest, Define{n, v})
	}
	c.defines = append(c.defines, sortedDefines(rest)...)
	return c, nil
}

// labConfig is the lab's form of the configuration.
func (c config3) labConfig() lab.Config {
	return lab.Config{Tile: c.tile, Block: sim.Dim3{X: c.block[0], Y: c.block[1], Z: c.block[2]}}
}

// source returns the CUDA C text of the step: its own source, or its file
// in package cuda.
func (c config3) source() (name, text string, err error) {
	name = strings.TrimSuffix(c.desc.CUDA.File, ".cu")
	if name == "" {
		name = c.step
	}
	if c.desc.CUDA.Source != "" {
		return name, c.desc.CUDA.Source, nil
	}
	text, err = cuda.Source(c.desc.CUDA.File)
	if err != nil {
		return "", "", fmt.Errorf("gpu: %s: %w", c.step, err)
	}
	return name, text, nil
}

// entry returns the kernel's function name for rows of nx points.
func (c config3) entry(nx int) string {
	if c.fast != nil {
		return fastEntry(nx)
	}
	return c.desc.CUDA.Entry
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// geometry returns the launch for an nz×ny×nx grid (each side ≥ 3), with
// the shared memory the kernel declares: the lab's geometry of the step
// (lab.Step3.Geometry), or the fast step's tuning. cz is the planes per
// block of fast when its configuration leaves them open.
func (c config3) geometry(nz, ny, nx, cz int) Geometry {
	if c.fast != nil {
		return fastGeometry(c, nz, ny, nx, cz)
	}
	if c.temporal != nil {
		return temporalGeometry(c, nz, ny, nx, cz)
	}
	return fromLab(c.desc.Geometry(nz, ny, nx, c.labConfig()))
}

// fromLab converts the lab's geometry.
func fromLab(g lab.Geometry) Geometry {
	return Geometry{Grid: [3]int{g.Grid.X, g.Grid.Y, g.Grid.Z}, Block: [3]int{g.Block.X, g.Block.Y, g.Block.Z},
		SharedBytes: g.SharedBytes, Planes: g.Planes}
}

// toLab converts a geometry to the lab's.
func (g Geometry) toLab() lab.Geometry {
	return lab.Geometry{Grid: sim.Dim3{X: g.Grid[0], Y: g.Grid[1], Z: g.Grid[2]},
		Block: sim.Dim3{X: g.Block[0], Y: g.Block[1], Z: g.Block[2]}, SharedBytes: g.SharedBytes, Planes: g.Planes}
}

// describeTile writes the tile as the study notes do: the block's extents,
// "32x32" for the coarsened kernels, "8x8x8" for the others; points x rows
// x planes per block for fast on rows of nx points with cz planes per
// block.
func (c config3) describeTile(nx, cz int) string {
	if c.fast != nil {
		return fastTile(c, nx, cz)
	}
	if c.temporal != nil {
		return temporalTile(c, cz)
	}
	return c.desc.TileShape(c.geometry(3, 3, nx, cz).toLab())
}

// Plan is what the gpu backend would compile and launch for a 3D step on
// an nz×ny×nx grid, worked out without a device: the entry point, the
// defines and the launch (for fast with the planes a block marches through
// left to the device, its default chunk).
type Plan struct {
	Source   string   // the source's name
	Entry    string   // the extern "C" __global__ function
	Defines  []Define // passed to NVRTC
	Geometry Geometry // grid, block and the shared memory the launch declares
	Tile     string   // the tile as the study notes write it
}

// PlanLaunch returns the plan of a step with options o on an nz×ny×nx grid
// (every side at least 3).
func PlanLaunch(step string, o Options, nz, ny, nx int) (Plan, error) {
	c, err := newConfig3(step, o)
	if err != nil {
		return Plan{}, err
	}
	if nz < 3 || ny < 3 || nx < 3 {
		return Plan{}, fmt.Errorf("gpu: %s: grid %d×%d×%d has a side below 3 and no interior point: %w", c.step, nz, ny, nx, lab.ErrSize)
	}
	name, _, err := c.source()
	if err != nil {
		return Plan{}, err
	}
	g := c.geometry(nz, ny, nx, 0)
	return Plan{Source: name, Entry: c.entry(nx), Defines: slices.Clone(c.defines), Geometry: g, Tile: c.describeTile(nx, g.Planes)}, nil
}
