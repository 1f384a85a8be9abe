package lab

import (
	"fmt"
	"stencillab.dev/lab/sim"
	"testing"
)

func TestBasicKernelMatchesReference(t *testing.T) {
	for _, n := range []int{3, 4, 7, 31, 67} {
		for _, B := range []int{4, 8, 10} {
			t.Run(fmt.Sprintf("N=%d/B=%d", n, B), func(t *testing.T) {
				checkKernel(t, "basic", BasicKernel, n, B)
			})
		}
	}
}

func TestBasicKernelDefaultBlock(t *testing.T) {
	checkKernel(t, "basic", BasicKernel, 19, 0)
	k, err := BasicKernel(StencilArgs{NZ: 19, NY: 19, NX: 19})
	if err != nil {
		t.Fatal(err)
	}
	// ⌈19/8⌉ = 3 blocks of 8×8×8 along each axis.
	if k.Block != (sim.Dim3{X: 8, Y: 8, Z: 8}) || k.Grid != (sim.Dim3{X: 3, Y: 3, Z: 3}) {
		t.Fatalf("launch <<<%v, %v>>>, want <<<(3,3,3), (8,8,8)>>>", k.Grid, k.Block)
	}
}
