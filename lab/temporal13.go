package lab

// Temporal13DefaultK is the default number of time steps one pass of the
// temporally blocked thirteen-point step advances (its tile, T13_K in
// cuda/temporal13.cu).
const Temporal13DefaultK = 2

// Temporal blocking of the thirteen-point star: k time steps in one pass
// over the grid, the halo of each level two points deep, so that a block's
// outputs are its input tile less 2k points on each side. Its tile is k;
// the tile shape and the planes per block are the gpu backend's tuning.
var _ = mustRegister3(Step3{
	Step: Step{Name: "temporal13", Title: "Beyond the roofline: temporal blocking of the thirteen-point star",
		Runs:     "k time steps of the thirteen-point star in one pass, a z-march through a k-stage pipeline of planes in shared memory",
		Notebook: "07b_past_the_roofline"},
	DefaultTile: Temporal13DefaultK,
	MinTile:     1,
	TileName:    "time steps per pass k",
	Radius:      Radius13,
	CUDA:        CUDA{File: "temporal13.cu", Entry: "temporal13", TileDefine: "T13_K"},
	TimeSteps:   func(cfg Config) int { return cfg.Tile },
})
