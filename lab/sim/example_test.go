package sim_test

import (
	"errors"
	"fmt"

	"stencillab.dev/lab/sim"
)

// A kernel of one's own: the second difference of a 1D array, with a tile
// of the input in shared memory. Each block of 8 threads loads 8 points
// and computes the 6 inside them, as the chapter's tiled kernel does in 3D.
func ExampleSimulator_Launch() {
	const n, block = 20, 8
	const outTile = block - 2
	in := &sim.Global{Name: "in", Data: make([]float32, n)}
	for i := range in.Data {
		in.Data[i] = float32(i * i) // its second difference is 2
	}
	out := &sim.Global{Name: "out", Data: make([]float32, n)}

	m := &sim.Simulator{}
	st, err := m.Launch(sim.Kernel{
		Name:  "second_difference",
		Grid:  sim.Dim3{X: (n-2)/outTile + 1, Y: 1, Z: 1},
		Block: sim.Dim3{X: block, Y: 1, Z: 1},
		Body: func(t *sim.Thread) {
			x := t.ThreadIdx.X
			i := t.BlockIdx.X*outTile + x - 1
			tile_s := t.Shared1("tile_s", block)
			if i >= 0 && i < n {
				tile_s.Store(x, t.Load(in, i))
			}
			t.Sync()
			if i >= 1 && i < n-1 && x >= 1 && x < block-1 {
				t.Store(out, i, tile_s.Load(x-1)-2*tile_s.Load(x)+tile_s.Load(x+1))
				t.Flops(3)
			}
		},
	})
	fmt.Println("error:", err)
	fmt.Println("out[1:6]:", out.Data[1:6])
	fmt.Println(st)
	// Output:
	// error: <nil>
	// out[1:6]: [2 2 2 2 2]
	// second_difference <<<4, 8>>>: global 104 B loaded, 72 B stored; shared 216 B loaded, 104 B stored; 54 flops; 0.519 OP/B
}

// The barrier removed: the simulator names the threads and the element.
func ExampleSimulator_Launch_race() {
	const n = 4
	in := &sim.Global{Name: "in", Data: []float32{1, 2, 3, 4}}
	out := &sim.Global{Name: "out", Data: make([]float32, n)}
	m := &sim.Simulator{}
	_, err := m.Launch(sim.Kernel{
		Name:  "reverse",
		Grid:  sim.Dim3{X: 1, Y: 1, Z: 1},
		Block: sim.Dim3{X: n, Y: 1, Z: 1},
		Body: func(t *sim.Thread) {
			x := t.ThreadIdx.X
			s := t.Shared1("s", n)
			s.Store(x, t.Load(in, x))
			// Missing: t.Sync()
			t.Store(out, x, s.Load(n-1-x))
		},
	})
	fmt.Println(errors.Is(err, sim.ErrHazard))
	fmt.Println(err)
	// Output:
	// true
	// sim: launch reverse: race: thread (1,0,0) of block (0,0,0) reads s[2] written by thread (2,0,0) with no barrier between (and 3 more hazards): shared-memory hazard
}
