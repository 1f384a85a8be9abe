//go:build goexperiment.simd && amd64

package lab

import "simd/archsimd"

// With GOEXPERIMENT=simd on amd64 and a CPU with AVX2, float32 rows of the
// reference sweep run eight points at a time with fused multiply-adds. The
// default build does without: Go does not vectorise loops by itself, and
// this is how it gets level with C built by gcc -O3 (see bench/).
func init() {
	if archsimd.X86.AVX2() {
		rowKernel32 = sevenPointRowAVX2
	}
}

func sevenPointRowAVX2(out, left, mid, right, up, down, prev, next []float32, c *[7]float32) {
	c0 := archsimd.BroadcastFloat32x8(c[0])
	c1 := archsimd.BroadcastFloat32x8(c[1])
	c2 := archsimd.BroadcastFloat32x8(c[2])
	c3 := archsimd.BroadcastFloat32x8(c[3])
	c4 := archsimd.BroadcastFloat32x8(c[4])
	c5 := archsimd.BroadcastFloat32x8(c[5])
	c6 := archsimd.BroadcastFloat32x8(c[6])
	k := 0
	for ; k+8 <= len(out); k += 8 {
		v := archsimd.LoadFloat32x8Slice(mid[k:]).Mul(c0)
		v = archsimd.LoadFloat32x8Slice(left[k:]).MulAdd(c1, v)
		v = archsimd.LoadFloat32x8Slice(right[k:]).MulAdd(c2, v)
		v = archsimd.LoadFloat32x8Slice(up[k:]).MulAdd(c3, v)
		v = archsimd.LoadFloat32x8Slice(down[k:]).MulAdd(c4, v)
		v = archsimd.LoadFloat32x8Slice(prev[k:]).MulAdd(c5, v)
		v = archsimd.LoadFloat32x8Slice(next[k:]).MulAdd(c6, v)
		v.StoreSlice(out[k:])
	}
	for ; k < len(out); k++ {
		out[k] = c[0]*mid[k] + c[1]*left[k] + c[2]*right[k] + c[3]*up[k] + c[4]*down[k] + c[5]*prev[k] + c[6]*next[k]
	}
}
