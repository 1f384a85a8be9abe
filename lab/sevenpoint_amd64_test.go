//go:build amd64 && !purego

package lab

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The CPU check agrees with the kernel's own flags in /proc/cpuinfo
// (Linux), and the assembly rows are in use where it passes.
func TestAVX2FMADetection(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo to check the CPUID test against: " + err.Error())
	}
	var flags []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "flags") {
			flags = strings.Fields(line)
			break
		}
	}
	require.NotEmpty(t, flags)
	has := func(f string) bool {
		for _, x := range flags {
			if x == f {
				return true
			}
		}
		return false
	}
	want := has("avx2") && has("fma") && has("avx")
	assert.Equal(t, want, hasAVX2FMA())
	assert.Equal(t, want, rowKernel32 != nil, "the assembly rows are used exactly where the CPU has them")
}

// The assembly rows against the scalar formula on rows of every length up
// to 40 (the multiples of eight in assembly, the rest in Go), streams
// longer than the row included.
func TestRowFMAMatchesScalar(t *testing.T) {
	if !hasAVX2FMA() {
		t.Skip("this CPU lacks AVX2 or FMA: the scalar loop runs instead")
	}
	c := [7]float32{0.5, 0.11, 0.13, 0.17, 0.19, 0.23, 0.29}
	for n := 0; n <= 40; n++ {
		g, _ := NewGrid3[float32](1, 8, n+3)
		g.FillRandom(uint64(n))
		s := func(r int) []float32 { return g.Data[r*(n+3) : r*(n+3)+n+3] }
		out := make([]float32, n)
		sevenPointRowFMA(out, s(1), s(2), s(3), s(4), s(5), s(6), s(7), &c)
		for k := range n {
			want := float64(c[0])*float64(s(2)[k]) + float64(c[1])*float64(s(1)[k]) + float64(c[2])*float64(s(3)[k]) +
				float64(c[3])*float64(s(4)[k]) + float64(c[4])*float64(s(5)[k]) + float64(c[5])*float64(s(6)[k]) + float64(c[6])*float64(s(7)[k])
			assert.InDelta(t, want, float64(out[k]), 1e-6, "n = %d, k = %d", n, k)
		}
	}
}
