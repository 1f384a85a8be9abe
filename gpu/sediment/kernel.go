package sediment

import (
	"fmt"

	"stencillab.dev/gpu"
	"stencillab.dev/lab/sediment"
)

// A Kernel is one of the case study's kernels on the device: its entry
// point, its launch and its arguments. The kernels are registered values
// (Ghost, H, S, Fused); a name, as the bench records it, is looked up once
// by LookupKernel, and what a kernel does comes with it.
type Kernel struct {
	name  string // as the bench records it (sediment.KernelH …)
	entry string // the extern "C" entry of the variant's file
	// rowsOnly: only a variant whose warps walk rows has it.
	rowsOnly bool
	// launch is the kernel's own launch; nil: the variant's.
	launch func(r *Sediment) gpu.Geometry
	// args packs its arguments for a variant; rows is the variant's
	// when its warps walk rows.
	args func(r *Sediment, f fields) *gpu.Args
}

// fields are the device addresses a kernel reads and writes: the current
// state, the other buffers (hn, sn) and the boundary's rates, and the
// rows each warp walks.
type fields struct {
	alpha, beta, s, h, hn, sn, rate uint64
	rows                            int32
}

// Name returns the kernel's name, as the bench records it.
func (k *Kernel) Name() string { return k.name }

// String returns the kernel's name.
func (k *Kernel) String() string { return k.name }

var (
	kernels       []*Kernel
	kernelsByName = map[string]*Kernel{}
)

// registerKernel registers a kernel at start-up.
func registerKernel(k *Kernel) *Kernel {
	if _, dup := kernelsByName[k.name]; dup {
		panic("gpu: a second sediment kernel named " + k.name)
	}
	kernels = append(kernels, k)
	kernelsByName[k.name] = k
	return k
}

// The kernels of every variant.
var (
	// Ghost sets the ghost heights from the boundary's inflow rates, one
	// thread a boundary face.
	Ghost = registerKernel(&Kernel{name: "ghost", entry: "sed_ghost_h",
		launch: func(r *Sediment) gpu.Geometry {
			return gpu.Geometry{Grid: [3]int{ceilDiv(2*(r.nx+r.ny), 128), 1, 1}, Block: [3]int{128, 1, 1}}
		},
		args: func(_ *Sediment, f fields) *gpu.Args { return sedGhostHArgs(f.alpha, f.beta, f.s, f.h, f.rate) }})
	// H is the h-kernel (eq. 3).
	H = registerKernel(&Kernel{name: sediment.KernelH, entry: "sed_h",
		args: func(r *Sediment, f fields) *gpu.Args {
			if r.v.walksRows {
				return sedHRowsArgs(f.alpha, f.beta, f.s, f.h, f.hn, f.rows)
			}
			return sedHArgs(f.alpha, f.beta, f.s, f.h, f.hn)
		}})
	// S is the s-kernel (eq. 4).
	S = registerKernel(&Kernel{name: sediment.KernelS, entry: "sed_s",
		args: func(r *Sediment, f fields) *gpu.Args {
			if r.v.walksRows {
				return sedSRowsArgs(f.alpha, f.beta, f.s, f.h, f.sn, f.rows)
			}
			return sedSArgs(f.alpha, f.beta, f.s, f.h, f.sn)
		}})
	// Fused computes h and s in one kernel; only the variants whose
	// warps walk rows have it.
	Fused = registerKernel(&Kernel{name: sediment.KernelFused, entry: "sed_hs", rowsOnly: true,
		args: func(_ *Sediment, f fields) *gpu.Args { return sedHsArgs(f.alpha, f.beta, f.s, f.h, f.hn, f.sn, f.rows) }})
)

// Kernels returns the kernels' names, in registration order.
func Kernels() []string {
	out := make([]string, len(kernels))
	for i, k := range kernels {
		out[i] = k.name
	}
	return out
}

// LookupKernel returns the kernel named (sediment.KernelH, KernelS,
// KernelFused or "ghost"), or an error listing them.
func LookupKernel(name string) (*Kernel, error) {
	k := kernelsByName[name]
	if k == nil {
		return nil, fmt.Errorf("gpu: sediment: no kernel %q (want one of %v): %w", name, Kernels(), sediment.ErrInput)
	}
	return k, nil
}
