//go:build goexperiment.simd && amd64 && purego

package lab

import "simd/archsimd"

// With GOEXPERIMENT=simd and -tags purego on amd64 and a CPU with AVX2,
// float32 rows of the reference sweep run eight points at a time with fused
// multiply-adds written with simd/archsimd. Without purego the assembly
// rows of sevenpoint_amd64.s run instead, in every build: they measured
// faster (see bench/). Go does not vectorise loops by itself.
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
	// Each pass loads every stream once as an [8]float32 array pointer, so
	// the bounds are checked once per stream and vector, and the eight
	// outputs are stored the same way.
	ld := func(s []float32, k int) archsimd.Float32x8 { return archsimd.LoadFloat32x8((*[8]float32)(s[k : k+8])) }
	k := 0
	for ; k+16 <= len(out); k += 16 {
		v := ld(mid, k).Mul(c0)
		w := ld(mid, k+8).Mul(c0)
		v = ld(left, k).MulAdd(c1, v)
		w = ld(left, k+8).MulAdd(c1, w)
		v = ld(right, k).MulAdd(c2, v)
		w = ld(right, k+8).MulAdd(c2, w)
		v = ld(up, k).MulAdd(c3, v)
		w = ld(up, k+8).MulAdd(c3, w)
		v = ld(down, k).MulAdd(c4, v)
		w = ld(down, k+8).MulAdd(c4, w)
		v = ld(prev, k).MulAdd(c5, v)
		w = ld(prev, k+8).MulAdd(c5, w)
		v = ld(next, k).MulAdd(c6, v)
		w = ld(next, k+8).MulAdd(c6, w)
		v.Store((*[8]float32)(out[k : k+8]))
		w.Store((*[8]float32)(out[k+8 : k+16]))
	}
	for ; k+8 <= len(out); k += 8 {
		v := ld(mid, k).Mul(c0)
		v = ld(left, k).MulAdd(c1, v)
		v = ld(right, k).MulAdd(c2, v)
		v = ld(up, k).MulAdd(c3, v)
		v = ld(down, k).MulAdd(c4, v)
		v = ld(prev, k).MulAdd(c5, v)
		v = ld(next, k).MulAdd(c6, v)
		v.Store((*[8]float32)(out[k : k+8]))
	}
	for ; k < len(out); k++ {
		out[k] = c[0]*mid[k] + c[1]*left[k] + c[2]*right[k] + c[3]*up[k] + c[4]*down[k] + c[5]*prev[k] + c[6]*next[k]
	}
}
