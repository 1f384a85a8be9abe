//go:build amd64 && !purego

package lab

// In the default build on amd64, float32 rows of the reference sweep run
// eight points at a time with AVX2 fused multiply-adds written in assembly
// (sevenpoint_amd64.s), where the CPU and the operating system support
// them: Go does not vectorise loops, and its scalar loop is bound by its 13
// floating-point instructions per point. GOEXPERIMENT=simd builds run these
// rows too, which measured faster than the same arithmetic written with
// simd/archsimd (sevenpoint_simd.go, which runs in simd builds with -tags
// purego); -tags purego in a default build keeps the scalar loop.
func init() {
	if hasAVX2FMA() {
		rowKernel32 = sevenPointRowFMA
	}
}

//go:noescape
func rowFMA8(out, left, mid, right, up, down, prev, next *float32, n int, c *[7]float32)

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv0() (lo, hi uint32)

// hasAVX2FMA reports whether the CPU has AVX2 and FMA and the operating
// system saves the YMM registers.
func hasAVX2FMA() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&fma == 0 || c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv0(); xcr0&6 != 6 { // XMM and YMM state
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0 // AVX2
}

// sevenPointRowFMA is a row kernel (rowKernel32) on rowFMA8: the multiple
// of eight points in assembly, the rest in Go. Every stream must hold at
// least len(out) values, which the slicing checks before any assembly runs.
func sevenPointRowFMA(out, left, mid, right, up, down, prev, next []float32, c *[7]float32) {
	n := len(out)
	if n == 0 {
		return
	}
	left, mid, right = left[:n], mid[:n], right[:n]
	up, down, prev, next = up[:n], down[:n], prev[:n], next[:n]
	if v := n &^ 7; v > 0 {
		rowFMA8(&out[0], &left[0], &mid[0], &right[0], &up[0], &down[0], &prev[0], &next[0], v, c)
	}
	for k := n &^ 7; k < n; k++ {
		out[k] = c[0]*mid[k] + c[1]*left[k] + c[2]*right[k] + c[3]*up[k] + c[4]*down[k] + c[5]*prev[k] + c[6]*next[k]
	}
}
