package lab

import "testing"

func benchSim(b *testing.B, k StencilKernel, n, tile int) {
	src, err := NewCube[float32](n)
	if err != nil {
		b.Fatal(err)
	}
	src.FillRandom(1)
	dst := src.Clone()
	s := &simT{tile: tile}
	for b.Loop() {
		if err := s.Run(k, dst, src, DistinctCoeffs()); err != nil {
			b.Fatal(err)
		}
	}
	st := s.Last()
	b.ReportMetric(float64(st.Threads), "threads/op")
}

// BenchmarkSimTiled64 times the shared-memory tiled kernel, T = 8, on 64³:
// 1331 blocks of 512 threads.
func BenchmarkSimTiled64(b *testing.B) { benchSim(b, TiledKernel, 64, 8) }

// BenchmarkSimBasic64 times the basic kernel, 8×8×8 blocks, on 64³.
func BenchmarkSimBasic64(b *testing.B) { benchSim(b, BasicKernel, 64, 8) }

// BenchmarkSimCoarsened64 times the coarsened kernel, T = 32, on 64³.
func BenchmarkSimCoarsened64(b *testing.B) { benchSim(b, CoarsenedKernel, 64, 32) }

// BenchmarkSimRegisterTiled64 times the register-tiled kernel, T = 32, on 64³.
func BenchmarkSimRegisterTiled64(b *testing.B) { benchSim(b, RegisterTiledKernel, 64, 32) }
