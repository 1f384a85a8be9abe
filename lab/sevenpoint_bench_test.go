package lab

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkSevenPoint times the reference sweep at 256³ on one thread (to
// compare with bench/sevenpoint.c built with gcc -O3) and on all cores.
// It reports GB/s at 8 bytes per interior point.
func BenchmarkSevenPoint(b *testing.B) {
	for _, threads := range []int{1, runtime.GOMAXPROCS(0)} {
		for _, n := range []int{128, 256} {
			b.Run(fmt.Sprintf("threads=%d/n=%d", threads, n), func(b *testing.B) {
				src, _ := NewCube[float32](n)
				src.FillRandom(1)
				dst := src.Clone()
				c := DistinctCoeffs()
				b.SetBytes(int64(8 * src.Interior()))
				b.ResetTimer()
				for range b.N {
					if err := SevenPointThreads(dst, src, c, threads); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
