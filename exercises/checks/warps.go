package checks

import (
	"errors"
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// WarpsFuncs are the functions of exercises/10_warps.
type WarpsFuncs struct {
	// Block returns a block shape for the basic kernel.
	Block func() (sim.Dim3, error)
	// Pitch returns the row length of the T×P shared tile of the
	// transposing kernel.
	Pitch func(T int) (int, error)
}

// The targets of the block exercise, on grids whose side is a multiple of
// 32 floats, so that every row starts on a sector: the 8×8×8 block of the
// slides moves about 80 % useful bytes and 4.8 sectors per load request
// there, a block one warp wide about 94 % and 4.1.
const (
	warpsEfficiency = 0.9
	warpsSectors    = 4.25
)

// warpsSides are the grid sides the block checks simulate.
var warpsSides = []int{64, 96}

// warpsTiles are the tiles of the transposing kernel: powers of two, so
// that a warp is 32/T whole rows of the block.
var warpsTiles = []int{4, 8, 16, 32}

// warpsDecl declares exercise 10.
var warpsDecl = declare(&Decl[WarpsFuncs]{
	ID:    "10_warps",
	Title: "Warps, sectors and banks: a block shape for the basic kernel, a padded shared tile",
	Files: []string{"warps.go"},
	Allow: sym(simPkg, "Dim3", "Dim3.X", "Dim3.Y", "Dim3.Z", "Dim3.Size", "WarpSize", "Banks", "WarpThreads",
		"CountShared", "CountGlobal", "SectorOf", "BankOf", "WarpCounts", "WarpCounts.Requests", "WarpCounts.Threads",
		"WarpCounts.UsefulBytes", "WarpCounts.Sectors", "WarpCounts.Lines", "WarpCounts.Wavefronts",
		"WarpCounts.Conflicts", "WarpCounts.MaxWays"),
	Checks: func(fn WarpsFuncs) []grading.Check {
		return []grading.Check{
			{ID: "block", Title: "Block is a block of at most 1024 threads that the basic kernel runs with", Points: 1,
				Run: func(t *grading.T) { warpsBlockValid(t, fn) }},
			{ID: "useful-bytes", Title: fmt.Sprintf("at least %.0f %% of the bytes the warps move are used (N = 64 and 96)", 100*warpsEfficiency), Points: 2,
				Run: func(t *grading.T) { warpsBlockTarget(t, fn, false) }},
			{ID: "sectors", Title: fmt.Sprintf("at most %.2f sectors per load request (N = 64 and 96)", warpsSectors), Points: 2,
				Run: func(t *grading.T) { warpsBlockTarget(t, fn, true) }},
			{ID: "no-conflicts", Title: "the transposing kernel reads its tile's columns without a bank conflict (T = 4, 8, 16, 32)", Points: 3,
				Run: func(t *grading.T) { warpsPitchConflicts(t, fn) }},
			{ID: "smallest", Title: "the pitch is the smallest that does so", Points: 2,
				Run: func(t *grading.T) { warpsPitchSmallest(t, fn) }},
			{ID: "bad-input", Title: "a tile that is not 4, 8, 16 or 32 is an error", Points: 1,
				Run: func(t *grading.T) { warpsPitchBad(t, fn) }},
		}
	},
})

// Warps returns exercise 10, warps, sectors and banks, checking fn.
func Warps(fn WarpsFuncs) grading.Exercise { return warpsDecl.Exercise(fn) }

func warpsBlock(t *grading.T, fn WarpsFuncs) sim.Dim3 {
	b, err := fn.Block()
	t.Must(err, "Block")
	return b
}

func warpsBlockValid(t *grading.T, fn WarpsFuncs) {
	b := warpsBlock(t, fn)
	if b.X < 1 || b.Y < 1 || b.Z < 1 {
		t.Fatalf("Block returned %d×%d×%d: every side must be at least 1", b.X, b.Y, b.Z)
	}
	if err := lab.CheckKernel(&sim.Simulator{}, lab.BasicKernel, lab.Config{Block: b}); err != nil {
		t.Fatalf("the basic kernel cannot run with Block's %s: %v", b.Shape(), err)
	}
}

// warpsRun simulates the basic kernel with block b on an n³ grid.
func warpsRun(t *grading.T, b sim.Dim3, n int) sim.Memory {
	res, err := lab.Execute(lab.Run{Step: "basic", Backend: lab.Sim, Config: lab.Config{Block: b},
		NZ: n, NY: n, NX: n, Seed: t.Rand().Uint64(), C: lab.DistinctCoeffs()})
	if err != nil {
		t.Fatalf("the basic kernel with Block's %s on %d³: %v", b.Shape(), n, err)
	}
	return res.Stats.Memory
}

func warpsBlockTarget(t *grading.T, fn WarpsFuncs, sectors bool) {
	b := warpsBlock(t, fn)
	if b.X < 1 || b.Y < 1 || b.Z < 1 || b.Size() > sim.MaxThreadsPerBlock {
		t.Fatalf("Block returned %d×%d×%d, not a block (see the check \"block\")", b.X, b.Y, b.Z)
	}
	for _, n := range warpsSides {
		m := warpsRun(t, b, n)
		if sectors {
			if got := m.GlobalLoads.SectorsPerRequest(); got > warpsSectors {
				w, _ := m.Worst(sim.GlobalLoad)
				t.Fatalf("block %s on %d³: %.3f sectors per load request, want at most %.2f (worst: %s, %.2f); how many rows of the grid does one warp of your block touch?",
					b.Shape(), n, got, warpsSectors, w.Place(), w.SectorsPerRequest())
			}
			continue
		}
		if got := m.Global().Efficiency(); got < warpsEfficiency {
			t.Fatalf("block %s on %d³: %.1f %% of the %d bytes the warps moved were used, want at least %.0f %%; a warp reads whole 32-byte sectors: which threads of your block form a warp?",
				b.Shape(), n, 100*got, m.Global().MovedBytes(), 100*warpsEfficiency)
		}
	}
}

// TransposeKernel transposes the n×n array in into out with T×T blocks
// through a shared tile tile_s[T][pitch]: thread (tx, ty) stores its
// element at tile_s[ty][tx], and after the barrier writes tile_s[tx][ty],
// a column of the tile, so that both global accesses run along rows.
func TransposeKernel(in, out *sim.Global, n, T, pitch int) sim.Kernel {
	blocks := (n + T - 1) / T
	return sim.Kernel{
		Name:  "transpose",
		Grid:  sim.Dim3{X: blocks, Y: blocks, Z: 1},
		Block: sim.Dim3{X: T, Y: T, Z: 1},
		Body: func(t *sim.Thread) {
			tx, ty := t.ThreadIdx.X, t.ThreadIdx.Y
			tile := t.Shared2("tile_s", T, pitch)
			if x, y := t.BlockIdx.X*T+tx, t.BlockIdx.Y*T+ty; x < n && y < n {
				tile.Store(ty, tx, t.Load(in, y*n+x))
			}
			t.Sync()
			if x, y := t.BlockIdx.Y*T+tx, t.BlockIdx.X*T+ty; x < n && y < n {
				t.Store(out, y*n+x, tile.Load(tx, ty))
			}
		},
	}
}

// transpose runs TransposeKernel on a random n×n array and checks the
// result; it returns the launch's memory counts.
func transpose(t *grading.T, n, T, pitch int) sim.Memory {
	in := &sim.Global{Name: "in", Data: make([]float32, n*n)}
	out := &sim.Global{Name: "out", Data: make([]float32, n*n)}
	for i := range in.Data {
		in.Data[i] = float32(t.Rand().NormFloat64())
	}
	st, err := (&sim.Simulator{}).Launch(TransposeKernel(in, out, n, T, pitch))
	if err != nil {
		t.Fatalf("the transposing kernel with T = %d and pitch %d: %v", T, pitch, err)
	}
	for y := range n {
		for x := range n {
			if out.Data[y*n+x] != in.Data[x*n+y] {
				t.Fatalf("the transposing kernel with T = %d and pitch %d: out[%d][%d] is not in[%d][%d]", T, pitch, y, x, x, y)
			}
		}
	}
	return st.Memory
}

func warpsPitch(t *grading.T, fn WarpsFuncs, T int) int {
	p, err := fn.Pitch(T)
	t.Must(err, fmt.Sprintf("Pitch(%d)", T))
	if p < T {
		t.Fatalf("Pitch(%d) = %d: a row of the tile holds T = %d floats, so the pitch is at least %d", T, p, T, T)
	}
	// Bounded before any use: the smallest-pitch check tries every pitch
	// below p, and a tile over the block's shared memory cannot run.
	if maxP := sim.DefaultSharedPerBlock / (sim.ElemBytes * T); p > maxP {
		t.Fatalf("Pitch(%d) = %d: a %d×%d tile of floats exceeds the %d bytes of shared memory a block may use (a pitch of at most %d fits)",
			T, p, T, p, sim.DefaultSharedPerBlock, maxP)
	}
	return p
}

func warpsPitchConflicts(t *grading.T, fn WarpsFuncs) {
	for _, T := range warpsTiles {
		p := warpsPitch(t, fn, T)
		m := transpose(t, 2*T+T/2, T, p)
		if c := m.SharedLoads.Conflicts; c > 0 {
			t.Fatalf("T = %d, pitch %d: reading tile_s[tx][ty] cost %d bank conflicts, up to %d-way; lane (tx, ty) reads word tx·pitch + ty, in bank (tx·pitch + ty) mod 32",
				T, p, c, m.SharedLoads.MaxWays)
		}
	}
}

// columnConflicts counts the bank conflicts of the column reads of one
// T×T block with pitch p: warp by warp, lane (tx, ty) reading word
// tx·p + ty.
func columnConflicts(T, p int) int64 {
	block := sim.Dim3{X: T, Y: T, Z: 1}
	var c int64
	for w := 0; w*sim.WarpSize < block.Size(); w++ {
		var words []int
		for _, th := range sim.WarpThreads(block, w) {
			words = append(words, th.X*p+th.Y)
		}
		c += sim.CountShared(words).Conflicts
	}
	return c
}

func warpsPitchSmallest(t *grading.T, fn WarpsFuncs) {
	for _, T := range warpsTiles {
		p := warpsPitch(t, fn, T)
		// Only a pitch that reads the columns without a conflict, counted
		// here, can be the smallest that does so.
		if c := columnConflicts(T, p); c > 0 {
			t.Fatalf("Pitch(%d) = %d reads the tile's columns with bank conflicts (%d in one %d×%d block), so it is not a pitch that avoids them (see the check \"no-conflicts\")", T, p, c, T, T)
		}
		for q := T; q < p; q++ {
			if columnConflicts(T, q) == 0 {
				t.Fatalf("Pitch(%d) = %d, but pitch %d already reads the columns without a conflict (and wastes less shared memory)", T, p, q)
			}
		}
	}
}

func warpsPitchBad(t *grading.T, fn WarpsFuncs) {
	for _, T := range []int{0, -8, 3, 12, 64} {
		_, err := fn.Pitch(T)
		if errors.Is(err, grading.ErrNotImplemented) {
			t.NotImplemented(fmt.Sprintf("Pitch(%d)", T))
		}
		if !t.WantError(err, fmt.Sprintf("Pitch(%d)", T)) {
			return
		}
	}
}
