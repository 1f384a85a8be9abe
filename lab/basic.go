package lab

import "fmt"

// BasicBlockDim is the default block edge of the basic kernel: blocks of
// 8×8×8 threads, the slides' BLOCK_DIM.
const BasicBlockDim = 8

// BasicKernel is the basic kernel of Fig. 8.6: one thread per grid point,
// in blocks of B×B×B threads (B = a.Tile, default BasicBlockDim). A thread
// whose point is interior loads its seven inputs from global memory and
// writes its output; the others do nothing. The grid covers all N³ points
// with ⌈N/B⌉ blocks along each axis.
func BasicKernel(a StencilArgs) (Kernel, error) {
	B := a.tile(BasicBlockDim)
	if B < 1 {
		return Kernel{}, fmt.Errorf("basic: block edge %d must be at least 1", B)
	}
	N := a.N
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	blocks := (N + B - 1) / B
	return Kernel{
		Name:  KernelBasic,
		Grid:  Dim3{X: blocks, Y: blocks, Z: blocks},
		Block: Dim3{X: B, Y: B, Z: B},
		Body: func(t *Thread) {
			i := t.BlockIdx.Z*t.BlockDim.Z + t.ThreadIdx.Z
			j := t.BlockIdx.Y*t.BlockDim.Y + t.ThreadIdx.Y
			k := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
			if i >= 1 && i < N-1 && j >= 1 && j < N-1 && k >= 1 && k < N-1 {
				t.Store(out, i*N*N+j*N+k, c0*t.Load(in, i*N*N+j*N+k)+
					c1*t.Load(in, i*N*N+j*N+(k-1))+
					c2*t.Load(in, i*N*N+j*N+(k+1))+
					c3*t.Load(in, i*N*N+(j-1)*N+k)+
					c4*t.Load(in, i*N*N+(j+1)*N+k)+
					c5*t.Load(in, (i-1)*N*N+j*N+k)+
					c6*t.Load(in, (i+1)*N*N+j*N+k))
				t.Flops(Flops7)
			}
		},
	}, nil
}
