package lab_test

import (
	"fmt"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The chapter's kernels run on the simulator, which counts the traffic of
// the launch; the count equals the intensity model's.
func ExampleSimulate() {
	src, _ := lab.NewCube[float32](34)
	src.FillRandom(1)
	dst := src.Clone()
	st, err := lab.Simulate(&sim.Simulator{}, lab.TiledKernel, lab.Config{Tile: 8}, dst, src, lab.DistinctCoeffs())
	if err != nil {
		fmt.Println(err)
		return
	}
	model, _ := lab.IntensityN("tiled", 34, 8)
	fmt.Printf("%d blocks, %d B loaded, %.4f OP/B measured, %.4f modelled\n",
		st.BlocksRun, st.GlobalLoadBytes, st.OpPerByte(), model)
	// Output:
	// 216 blocks, 340736 B loaded, 1.2502 OP/B measured, 1.2502 modelled
}
