package halo_test

import (
	"fmt"

	"stencillab.dev/lab"
	"stencillab.dev/lab/halo"
)

// Four z-slabs of a 12×6×5 grid: ten interior planes, three to the first
// two ranks and two to the others, each rank holding a plane of halo on
// each side it shares.
func ExampleDecompose() {
	parts, err := halo.Decompose(12, 6, 5, 4, 1, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range parts {
		fmt.Printf("rank %d owns planes [%d, %d), holds [%d, %d), below %2d, above %2d\n", p.Rank, p.Z0, p.Z1, p.LZ0, p.LZ1, p.Down, p.Up)
	}
	for _, s := range halo.Volume(parts) {
		fmt.Printf("rank %d computes %d points and receives %d\n", s.Rank, s.Interior, s.Halo)
	}
	// Output:
	// rank 0 owns planes [1, 4), holds [0, 5), below -1, above  1
	// rank 1 owns planes [4, 7), holds [3, 8), below  0, above  2
	// rank 2 owns planes [7, 9), holds [6, 10), below  1, above  3
	// rank 3 owns planes [9, 11), holds [8, 12), below  2, above -1
	// rank 0 computes 36 points and receives 30
	// rank 1 computes 36 points and receives 60
	// rank 2 computes 24 points and receives 60
	// rank 3 computes 24 points and receives 30
}

// Two goroutine ranks exchange their halos: each sends its owned edge
// plane and receives its neighbour's into its halo, in one group, and the
// world counts what moved.
func ExampleExchange() {
	parts, _ := halo.Decompose(6, 3, 3, 2, 1, 1)
	w, _ := halo.NewWorld(2)
	bufs := make([][]float32, 2)
	for r, p := range parts {
		bufs[r] = make([]float32, p.LocalLen())
		for z := p.Z0; z < p.Z1; z++ { // the owned planes hold their z
			for i := range 9 {
				bufs[r][p.Local(z, 0, 0)+i] = float32(z)
			}
		}
	}
	err := halo.RunRanks(w.Comms(), func(c *halo.ChanComm) error {
		return halo.Exchange[[]float32](c, bufs[c.Rank()], parts[c.Rank()], 3)
	})
	fmt.Println("error:", err)
	fmt.Println("rank 0's halo plane 3 holds", bufs[0][parts[0].Local(3, 1, 1)])
	fmt.Println("rank 1's halo plane 2 holds", bufs[1][parts[1].Local(2, 1, 1)])
	for r, c := range w.Counters() {
		fmt.Printf("rank %d sent %d message of %d bytes\n", r, c.SentMessages, c.SentBytes)
	}
	// Output:
	// error: <nil>
	// rank 0's halo plane 3 holds 3
	// rank 1's halo plane 2 holds 2
	// rank 0 sent 1 message of 36 bytes
	// rank 1 sent 1 message of 36 bytes
}

// A run split over three ranks through lab.Execute, which hands it to
// this package once it is imported: 2(G−1) = 4 messages of one 7×6 plane
// each, 672 bytes, per time step.
func ExampleRunSplit() {
	res, err := lab.Execute(lab.Run{Step: "reference", Backend: lab.CPU, NZ: 11, NY: 7, NX: 6, Seed: 1,
		C: lab.DistinctCoeffs(), Steps: 3, Split: lab.Split{Ranks: 3}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d messages and %.0f bytes per time step\n", res.Comm.TotalMessages(), res.Comm.BytesPerStep())
	// Output:
	// 4 messages and 672 bytes per time step
}
