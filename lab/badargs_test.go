package lab

import (
	"os"
	"slices"
	"strings"
	"testing"

	"stencillab.dev/lab/badcall"
	"stencillab.dev/lab/sim"
)

// Execute and Simulate, the two ways a notebook runs a kernel, called with
// bad arguments, each call in a child process (this test binary run again
// with labBadCallEnv naming it), so that even a panic no recover catches,
// in a goroutine of the simulator, fails the call's check rather than the
// test binary.

const labBadCallEnv = "LAB_BAD_CALL"

// labBadCalls lists the calls, each named "Export/what is bad"; every one
// must return an error.
func labBadCalls() map[string]func() error {
	cube := func(n int) *Grid3[float32] { g, _ := NewCube[float32](n); return g }
	short := &Grid3[float32]{NZ: 5, NY: 5, NX: 5, Data: make([]float32, 7)}
	var nilSlice []int
	kernels := map[string]StencilKernel{
		"set-up panics":      func(StencilArgs) (sim.Kernel, error) { panic("in the set-up") },
		"set-up indexes nil": func(a StencilArgs) (sim.Kernel, error) { return sim.Kernel{Grid: sim.Dim3{X: nilSlice[a.NX]}}, nil },
		"no body":            func(StencilArgs) (sim.Kernel, error) { return sim.Kernel{}, nil },
		"zero block": func(StencilArgs) (sim.Kernel, error) {
			return sim.Kernel{Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Body: func(*sim.Thread) {}}, nil
		},
		"thread writes a nil map": func(StencilArgs) (sim.Kernel, error) {
			return sim.Kernel{Grid: sim.Dim3{X: 2, Y: 1, Z: 1}, Block: sim.Dim3{X: 4, Y: 1, Z: 1},
				Body: func(*sim.Thread) { var m map[int]int; m[1]++ }}, nil
		},
		"store past the end": func(a StencilArgs) (sim.Kernel, error) {
			return sim.Kernel{Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1},
				Body: func(t *sim.Thread) { t.Store(a.Out, 1<<40, 1) }}, nil
		},
		"huge grid": func(StencilArgs) (sim.Kernel, error) {
			return sim.Kernel{Grid: sim.Dim3{X: 1 << 30, Y: 1 << 30, Z: 64}, Block: sim.Dim3{X: 1024, Y: 1, Z: 1}, Body: func(*sim.Thread) {}}, nil
		},
	}
	calls := map[string]func() error{
		"Execute/empty run":       func() error { _, err := Execute(Run{}); return err },
		"Execute/unknown step":    func() error { _, err := Execute(Run{Step: "tiledd", Backend: Sim, NZ: 5, NY: 5, NX: 5}); return err },
		"Execute/unknown backend": func() error { _, err := Execute(Run{Step: "tiled", Backend: "tpu", NZ: 5, NY: 5, NX: 5}); return err },
		"Execute/negative sides":  func() error { _, err := Execute(Run{Step: "tiled", Backend: Sim, NZ: -5, NY: 5, NX: 5}); return err },
		"Execute/huge sides": func() error {
			_, err := Execute(Run{Step: "tiled", Backend: Sim, NZ: 1 << 30, NY: 1 << 30, NX: 1 << 30})
			return err
		},
		"Execute/negative tile": func() error {
			_, err := Execute(Run{Step: "tiled", Backend: Sim, NZ: 5, NY: 5, NX: 5, Config: Config{Tile: -1}})
			return err
		},
		"Execute/huge tile": func() error {
			_, err := Execute(Run{Step: "tiled", Backend: Sim, NZ: 5, NY: 5, NX: 5, Config: Config{Tile: 1 << 40}})
			return err
		},
		"Execute/negative block": func() error {
			_, err := Execute(Run{Step: "basic", Backend: Sim, NZ: 5, NY: 5, NX: 5, Config: Config{Block: sim.Dim3{X: -1, Y: 1, Z: 1}}})
			return err
		},
		"Execute/absurd reps": func() error {
			_, err := Execute(Run{Step: "tiled", Backend: Sim, NZ: 5, NY: 5, NX: 5, Reps: 99999999999999})
			return err
		},
		"Execute/absurd steps": func() error {
			_, err := Execute(Run{Step: "tiled", Backend: Sim, NZ: 5, NY: 5, NX: 5, Steps: 99999999999999})
			return err
		},
		"Execute/short input": func() error { _, err := Execute(Run{Step: "tiled", Backend: Sim, Src: short}); return err },
		"Execute/short output": func() error {
			_, err := Execute(Run{Step: "tiled", Backend: CPU, Src: cube(5), Dst: short})
			return err
		},
		"Execute/output of another shape": func() error {
			_, err := Execute(Run{Step: "reference", Backend: CPU, Src: cube(5), Dst: cube(6)})
			return err
		},
		"Execute/output is the input": func() error {
			g := cube(5)
			_, err := Execute(Run{Step: "reference", Backend: CPU, Src: g, Dst: g})
			return err
		},
		"Execute/own kernel on the CPU": func() error {
			_, err := Execute(Run{Step: "mine", Kernel: kernels["no body"], Backend: CPU, NZ: 5, NY: 5, NX: 5})
			return err
		},
		"Execute/broken kernel on the GPU": func() error {
			_, err := Execute(Run{Step: "tiled_no_barrier", Backend: GPU, NZ: 5, NY: 5, NX: 5})
			return err
		},
		"Simulate/nil simulator": func() error {
			_, err := Simulate(nil, TiledKernel, Config{}, cube(5), cube(5), DistinctCoeffs())
			return err
		},
		"Simulate/nil kernel": func() error {
			_, err := Simulate(&sim.Simulator{}, nil, Config{}, cube(5), cube(5), DistinctCoeffs())
			return err
		},
		"Simulate/nil grids": func() error {
			_, err := Simulate(&sim.Simulator{}, TiledKernel, Config{}, nil, nil, DistinctCoeffs())
			return err
		},
		"Simulate/short grid": func() error {
			_, err := Simulate(&sim.Simulator{}, TiledKernel, Config{}, cube(5), short, DistinctCoeffs())
			return err
		},
		"Simulate/negative tile": func() error {
			_, err := Simulate(&sim.Simulator{}, TiledKernel, Config{Tile: -3}, cube(5), cube(5), DistinctCoeffs())
			return err
		},
		"Simulate/one grid": func() error {
			g := cube(5)
			_, err := Simulate(&sim.Simulator{}, TiledKernel, Config{}, g, g, DistinctCoeffs())
			return err
		},
	}
	for name, k := range kernels {
		calls["Execute/kernel: "+name] = func() error {
			_, err := Execute(Run{Step: "mine", Kernel: k, Backend: Sim, NZ: 5, NY: 5, NX: 5, C: DistinctCoeffs()})
			return err
		}
		calls["Simulate/kernel: "+name] = func() error {
			_, err := Simulate(&sim.Simulator{}, k, Config{}, cube(5), cube(5), DistinctCoeffs())
			return err
		}
	}
	return calls
}

// labCalls is labBadCalls as badcall's calls, in the order of their names.
func labCalls() []badcall.Call {
	var cs []badcall.Call
	for name, call := range labBadCalls() {
		cs = append(cs, badcall.Call{Name: name, Call: call, WantErr: true})
	}
	slices.SortFunc(cs, func(a, b badcall.Call) int { return strings.Compare(a.Name, b.Name) })
	return cs
}

func TestLabBadArgumentChild(t *testing.T) {
	badcall.Child(t, labBadCallEnv, labCalls())
}

func TestExecuteAndSimulateBadArguments(t *testing.T) {
	if os.Getenv(labBadCallEnv) != "" {
		t.Skip("in a child process")
	}
	badcall.Run(t, labBadCallEnv, "TestLabBadArgumentChild", labCalls())
}
