// Package multi runs a 3D step of package gpu split over several GPUs:
// in one process driving every device, or one rank per process under
// mpirun or Slurm, the ranks meeting at a rendezvous and exchanging halos
// through NCCL or peer copies. Its overlap strategies (how a rank's
// exchange overlaps its sweep) are registered values; lab.Split.Overlap
// names one. The package registers itself as the gpu backend's splitter
// (lab.RegisterSplitter), so that lab.Execute runs a split lab.Run on GPUs
// once it is imported.
package multi

import (
	"os"

	"stencillab.dev/gpu"
	"stencillab.dev/gpu/cu"
)

// drv is the binding gpu calls through (a test's fake, or the libraries).
func drv() cu.API { return gpu.Binding() }

// getenv reads the environment; tests replace it.
var getenv = os.Getenv
