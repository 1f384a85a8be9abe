package gpu

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"stencillab.dev/cuda"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Steps3 returns the 3D seven-point steps the gpu backend runs, in
// teaching order: the lab's steps that have device code (lab.OnGPU) and
// compute the seven-point star (lab.SevenPointStep).
func Steps3() []string {
	return lab.Names3(func(s lab.Step3) bool { return lab.OnGPU(s) && lab.SevenPointStep(s) })
}

// Sweeps3 returns the 3D seven-point steps the gpu backend runs that
// advance one time step a pass, the sweeps (lab.Step3.TimeSteps nil), in
// teaching order.
func Sweeps3() []string {
	return lab.Names3(func(s lab.Step3) bool { return lab.OnGPU(s) && lab.SevenPointStep(s) && s.TimeSteps == nil })
}

// Steps13 returns the 3D thirteen-point steps the gpu backend runs (a star
// of radius 2, lab.Step3.Radius), in teaching order: they take
// lab.Coeffs13 (Launch13, Measure13, MeasureSteps13, Advance13).
func Steps13() []string {
	return lab.Names3(func(s lab.Step3) bool { return lab.OnGPU(s) && s.StarRadius() == lab.Radius13 })
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
	// Defines are the step's tuning parameters (Params lists them with
	// their ranges and what they do); a define the step does not know is
	// an error. The tile's own define is set through Tile.
	Defines []Define
}

// config3 is a resolved configuration of a 3D step: everything needed to
// compile it and to compute its launch for any grid.
type config3 struct {
	step    string
	desc    lab.Step3
	tile    int
	block   [3]int   // the block of a step whose block is free; zero otherwise
	defines []Define // passed to NVRTC, in order
	// tuned is the configuration of a step that brings a tuning (see
	// tuning); nil for a step whose launch is the lab's geometry.
	tuned tuned
}

// A tuning is what a step whose launch the lab leaves to the gpu backend
// (lab.Step3.Geometry nil, or a GPU kernel other than the simulated one)
// brings to it: its parameters, and for each configuration its sources,
// entry points, launch geometry and extra arguments. A step's file of this
// package registers it with registerTuning under the step's name; the rest
// of the package reaches it only through this interface.
type tuning interface {
	// params is the step's parameter table.
	params() []Param
	// configure validates the user's defines (by name, those the table
	// holds) for a resolved tile and returns the configuration.
	configure(s lab.Step3, tile int, user map[string]string) (tuned, error)
}

// tuned is one configuration of a tuned step.
type tuned interface {
	// defines are passed to NVRTC, in the table's order.
	defines() []Define
	// sources are the files of package cuda compiled as one text, a
	// common part first.
	sources() []string
	// entry is the kernel for rows of nx points.
	entry(nx int) string
	// geometry is the launch on an nz×ny×nx grid with cz planes per block
	// when the configuration leaves them open.
	geometry(nz, ny, nx, cz int) Geometry
	// describe writes the tile of a launch on rows of nx points with cz
	// planes per block, as the bench records it.
	describe(nx, cz int) string
	// chunks reports whether the planes per block are chosen per grid
	// (open), and the planes a chunk costs beyond its own (halo).
	chunks() (open bool, halo int)
	// check refuses rows of nx points that the configuration cannot run
	// on a device with props p, naming the limit.
	check(nx int, p Props) error
	// args are the kernel's arguments for a sweep of the nz×ny×nx grid at
	// src into dst with launch g.
	args(src, dst uint64, nz, ny, nx int, c coefs, g Geometry) *Args
}

// tunings are the registered tunings, by step name.
var tunings = map[string]tuning{}

// registerTuning registers the tuning of a step of the lab and returns it;
// a step's file of this package calls it when the package is initialised.
func registerTuning(step string, t tuning) tuning {
	if _, dup := tunings[step]; dup {
		panic("gpu: a second tuning for step " + step)
	}
	tunings[step] = t
	return t
}

// Param is one tuning parameter of a step: a compile-time define, or a
// launch setting, with its range and what it does.
type Param struct {
	Name   string // the define, e.g. "FAST_BY"
	Lo, Hi int    // the range of its integer value
	Help   string // what it sets, in one sentence
	// Applies says where it applies, e.g. "FAST_MODE=0"; empty: always.
	Applies string
	// Launch is true for a launch setting, which is not passed to NVRTC.
	Launch bool
	// Tried are the values the timed choice of a setting tries (Candidates,
	// every combination with the other rows' tried values); none: the
	// choice leaves the parameter at its default.
	Tried []int
}

// paramRow is a row of a step's parameter table over its configuration
// type P: the parameter, where its value lives in P and whether it applies
// to a configuration. One table gives a step's validation, its defines and
// its help text.
type paramRow[P any] struct {
	Param
	at      func(*P) *int
	applies func(*P) bool // nil: always
}

// paramTable is a step's parameter table, in the order of its defines.
type paramTable[P any] []paramRow[P]

// params returns the table's parameters.
func (t paramTable[P]) params() []Param {
	out := make([]Param, len(t))
	for i, r := range t {
		out[i] = r.Param
	}
	return out
}

// names returns the parameters' names, in the table's order.
func (t paramTable[P]) names() []string {
	out := make([]string, len(t))
	for i, r := range t {
		out[i] = r.Name
	}
	return out
}

// set reads the user's defines into p: each must be a row of the table,
// an integer in its range. A define the table lacks is an error naming the
// known ones.
func (t paramTable[P]) set(step string, p *P, user map[string]string) error {
	byName := map[string]paramRow[P]{}
	for _, r := range t {
		byName[r.Name] = r
	}
	for _, n := range slices.Sorted(maps.Keys(user)) {
		r, ok := byName[n]
		if !ok {
			return fmt.Errorf("gpu: %s: unknown define %s%s (known: %s)", step, n,
				lab.DidYouMean(n, t.names()), strings.Join(t.names(), ", "))
		}
		v, err := strconv.Atoi(user[n])
		if err != nil || v < r.Lo || v > r.Hi {
			return fmt.Errorf("gpu: %s: %s = %s must be an integer from %d to %d", step, n, user[n], r.Lo, r.Hi)
		}
		*r.at(p) = v
	}
	return nil
}

// check refuses a parameter the user gave that does not apply to p.
func (t paramTable[P]) check(step string, p *P, user map[string]string) error {
	for _, r := range t {
		if _, given := user[r.Name]; given && r.applies != nil && !r.applies(p) {
			return fmt.Errorf("gpu: %s: %s = %s applies to %s only", step, r.Name, user[r.Name], r.Applies)
		}
	}
	return nil
}

// defines returns the defines of p: every row that applies and is not a
// launch setting, in the table's order.
func (t paramTable[P]) defines(p *P) []Define {
	var ds []Define
	for _, r := range t {
		if r.Launch || (r.applies != nil && !r.applies(p)) {
			continue
		}
		ds = append(ds, Define{r.Name, strconv.Itoa(*r.at(p))})
	}
	return ds
}

// Params returns the tuning parameters a 3D step takes as defines
// (Options.Defines), in the order they are passed to NVRTC; none for a
// step whose only setting is its tile.
func Params(step string) []Param {
	s, err := lab.LookupStep3(step)
	if err != nil {
		return nil
	}
	if t, ok := tunings[s.Name]; ok {
		return t.params()
	}
	return nil
}

// ParamHelp writes a step's tuning parameters, one a line: the define, its
// range, where it applies and what it sets; empty for a step that has
// none.
func ParamHelp(step string) string {
	var b strings.Builder
	for _, p := range Params(step) {
		kind := "define"
		if p.Launch {
			kind = "launch"
		}
		where := ""
		if p.Applies != "" {
			where = " (" + p.Applies + " only)"
		}
		fmt.Fprintf(&b, "%-14s %s, %d to %d%s: %s\n", p.Name, kind, p.Lo, p.Hi, where, p.Help)
	}
	return b.String()
}

// newConfig3 validates o for a 3D step of the lab with device code, by
// name or alias, and fills in the defaults.
func newConfig3(step string, o Options) (config3, error) {
	s, err := lab.LookupStep3(step)
	if err != nil {
		return config3{}, fmt.Errorf("gpu: no 3D step %q on the GPU%s (known: %s)", step, lab.DidYouMean(step, Steps3()), strings.Join(Steps3(), ", "))
	}
	return configOf(s, o)
}

// configOf validates o for a 3D step the lab has looked up (newConfig3
// by name) and resolves its configuration: the tile's default, the block.
func configOf(s lab.Step3, o Options) (config3, error) {
	if err := onGPU(s); err != nil {
		return config3{}, err
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
	return resolvedConfig(s, cfg, o.Defines)
}

// onGPU refuses a step that has no device code or no launch geometry.
func onGPU(s lab.Step3) error {
	if !lab.OnGPU(s) {
		return fmt.Errorf("gpu: no 3D step %q on the GPU (known: %s)", s.Name, strings.Join(Steps3(), ", "))
	}
	if _, tunes := tunings[s.Name]; s.Geometry == nil && !tunes {
		return fmt.Errorf("gpu: %s: no launch geometry: give the step one in lab (Step3.Geometry), or a tuning in the gpu package", s.Name)
	}
	return nil
}

// resolvedConfig is the configuration of a step whose tile and block the
// lab has resolved and validated (lab.Resolve, Step3.Resolve): it is not
// resolved or validated again; only the defines, which the lab does not
// know, are checked here.
func resolvedConfig(s lab.Step3, cfg lab.Config, defines []Define) (config3, error) {
	tn, tunes := tunings[s.Name]
	c := config3{step: s.Name, desc: s, tile: cfg.Tile}
	if s.BlockShape {
		c.block = [3]int{cfg.Block.X, cfg.Block.Y, cfg.Block.Z}
		if c.block == [3]int{} {
			c.block = [3]int{c.tile, c.tile, c.tile}
		}
	}
	var err error
	user := map[string]string{}
	for _, d := range defines {
		if !validIdent(d.Name) {
			return config3{}, fmt.Errorf("gpu: %s: define %q is not a C identifier", s.Name, d.Name)
		}
		if s.CUDA.TileDefine != "" && d.Name == s.CUDA.TileDefine {
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
	if !tunes {
		// A step without a tuning takes no defines: its tile is its only
		// setting.
		if len(user) > 0 {
			return config3{}, fmt.Errorf("gpu: %s: unknown define %s: the step takes no defines (its tile is set through the tile)",
				s.Name, slices.Sorted(maps.Keys(user))[0])
		}
		return c, nil
	}
	if c.tuned, err = tn.configure(s, c.tile, user); err != nil {
		return config3{}, err
	}
	c.defines = append(c.defines, c.tuned.defines()...)
	return c, nil
}

// labConfig is the lab's form of the configuration.
func (c config3) labConfig() lab.Config {
	return lab.Config{Tile: c.tile, Block: sim.Dim3{X: c.block[0], Y: c.block[1], Z: c.block[2]}}
}

// source returns the CUDA C text of the step: its own source, its file in
// package cuda, or for a tuned step the files of its configuration joined
// (a common part first), named by the last.
func (c config3) source() (name, text string, err error) {
	files := []string{c.desc.CUDA.File}
	if c.tuned != nil {
		files = c.tuned.sources()
	}
	name = strings.TrimSuffix(files[len(files)-1], ".cu")
	if name == "" {
		name = c.step
	}
	if c.desc.CUDA.Source != "" {
		return name, c.desc.CUDA.Source, nil
	}
	parts := make([]string, len(files))
	for i, f := range files {
		if parts[i], err = cuda.Source(f); err != nil {
			return "", "", fmt.Errorf("gpu: %s: %w", c.step, err)
		}
	}
	return name, strings.Join(parts, "\n"), nil
}

// entry returns the kernel's function name for rows of nx points.
func (c config3) entry(nx int) string {
	if c.tuned != nil {
		return c.tuned.entry(nx)
	}
	return c.desc.CUDA.Entry
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// geometry returns the launch for an nz×ny×nx grid (each side ≥ 3), with
// the shared memory the kernel declares: the lab's geometry of the step
// (lab.Step3.Geometry), or its tuning's. cz is the planes per block of a
// tuned step when its configuration leaves them open.
func (c config3) geometry(nz, ny, nx, cz int) Geometry {
	if c.tuned != nil {
		return c.tuned.geometry(nz, ny, nx, cz)
	}
	return fromLab(c.desc.Geometry(nz, ny, nx, c.labConfig()))
}

// chunks reports whether the planes per block are chosen per grid, and the
// planes each chunk costs beyond its own: never for a step whose launch is
// the lab's.
func (c config3) chunks() (open bool, halo int) {
	if c.tuned != nil {
		return c.tuned.chunks()
	}
	return false, 0
}

// check refuses rows of nx points that the configuration cannot run on a
// device with props p, naming the limit.
func (c config3) check(nx int, p Props) error {
	if c.tuned != nil {
		return c.tuned.check(nx, p)
	}
	return nil
}

// fromLab converts the lab's geometry.
func fromLab(g lab.Geometry) Geometry {
	return Geometry{Grid: [3]int{g.Grid.X, g.Grid.Y, g.Grid.Z}, Block: [3]int{g.Block.X, g.Block.Y, g.Block.Z},
		SharedBytes: g.SharedBytes, Planes: g.Planes}
}

// Lab converts a geometry to the lab's.
func (g Geometry) Lab() lab.Geometry {
	return lab.Geometry{Grid: sim.Dim3{X: g.Grid[0], Y: g.Grid[1], Z: g.Grid[2]},
		Block: sim.Dim3{X: g.Block[0], Y: g.Block[1], Z: g.Block[2]}, SharedBytes: g.SharedBytes, Planes: g.Planes}
}

// describeTile writes the tile as the study notes do: the block's extents,
// "32x32" for the coarsened kernels, "8x8x8" for the others; a tuned
// step's own description (fast: points x rows x planes per block) on rows
// of nx points with cz planes per block.
func (c config3) describeTile(nx, cz int) string {
	if c.tuned != nil {
		return c.tuned.describe(nx, cz)
	}
	return c.desc.TileShape(c.geometry(3, 3, nx, cz).Lab())
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

// minChunk is the fewest planes a tuned step's block marches through when
// the planes are chosen per grid: below it the halo planes of each chunk
// cost too much.
const minChunk = 8

// chooseChunkHalo is chooseChunk for a kernel whose chunks each cost halo
// planes beyond their own: 2 for a sweep, 2k for k time steps a pass.
func chooseChunkHalo(B, P, capacity, halo int) int {
	if P < 1 || B < 1 {
		return 1
	}
	capacity = max(capacity, 1)
	best, bestEff := P, -1.0
	for K := 1; K <= P; K++ {
		cz := ceilDiv(P, K)
		if cz < minChunk && K > 1 {
			break
		}
		k := ceilDiv(P, cz)
		waves := ceilDiv(B*k, capacity)
		eff := float64(B*P) / float64(waves*capacity*(cz+halo))
		if eff > bestEff+1e-9 {
			best, bestEff = cz, eff
		}
	}
	return best
}

// checkCoefs refuses coefficients of another star than the step's: a
// seven-point step given thirteen, or a thirteen-point step seven.
func (c config3) checkCoefs(co coefs) error {
	r := c.desc.StarRadius()
	if want := starCoefs(r); len(co) != want {
		return fmt.Errorf("gpu: %s computes a star of radius %d, which takes %d coefficients (%s), not %d",
			c.step, r, want, coeffsType(r), len(co))
	}
	return nil
}
