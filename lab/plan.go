package lab

import (
	"fmt"
	"slices"
	"strings"
)

// Plan is a run's step resolved once, at the edge (a command line, a
// notebook, a bench): the step's description, the backend that runs it and
// the configuration with its defaults filled in and validated. It travels
// from there to the launch: nothing below looks the name up again,
// resolves the configuration again or validates it again.
//
// The zero Plan is unresolved; Resolve makes one.
type Plan struct {
	// Name is the name the run is reported under, as it was given: the
	// step's name or alias, or a broken kernel's.
	Name string
	// Step is the step's description.
	Step Step3
	// Kernel, when set, is simulated instead of the step's own kernel: a
	// broken kernel of the step (Step3.Broken), or a kernel of one's own
	// (Run.Kernel). It runs on the simulator only.
	Kernel StencilKernel
	// Backend names where it runs: CPU, Sim or GPU.
	Backend string
	// Config is the configuration, defaults resolved (Step3.Resolve).
	Config Config

	backend Backend
}

// Resolved reports whether p was made by Resolve.
func (p Plan) Resolved() bool { return p.backend != nil }

// Device names where the plan runs, as Result.Device does.
func (p Plan) Device() string {
	if p.backend == nil {
		return ""
	}
	return p.backend.Device()
}

// Runner prepares the plan's step on its backend. A split run prepares one
// runner per rank from the same plan.
func (p Plan) Runner() (Runner, error) {
	if p.backend == nil {
		return nil, fmt.Errorf("lab: run %s: the plan is not resolved (lab.Resolve): %w", p.Name, ErrUnknown)
	}
	if p.Kernel != nil {
		return newSimRunner(p.Kernel, p.Config), nil
	}
	return p.backend.Runner(p.Step, p.Config)
}

// StepsPerPass returns the time steps one pass of the plan advances.
func (p Plan) StepsPerPass() int { return p.Step.StepsPerPass(p.Config) }

// Resolve looks a 3D step (by name, alias, or the name of one of its
// broken kernels) and a backend up, once, and resolves cfg against the
// step: the one lookup, resolve and validation of a run. A broken kernel
// runs on the simulator only. On an error of the backend or the
// configuration the returned Plan still names the step (Plan.Step), so
// that the caller can say more about it.
func Resolve(name, backendName string, cfg Config) (Plan, error) {
	s, broken, err := lookupRun(name)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Name: name, Step: s, Backend: backendName, Config: cfg}
	if broken != nil {
		p.Kernel = broken
		if backendName != Sim {
			return p, fmt.Errorf("lab: %s is a broken kernel of %s and runs on the simulator only, not on %q", name, s.Name, backendName)
		}
	}
	b, ok := backend(backendName)
	if !ok {
		if backendName == GPU {
			return p, fmt.Errorf("lab: step %q on backend %q: %w (import the gpu package to register it)", s.Name, backendName, ErrUnknown)
		}
		return p, fmt.Errorf("lab: backend %q: %w (known: cpu, sim, gpu)", backendName, ErrUnknown)
	}
	if broken == nil && !b.Supports(s) {
		return p, fmt.Errorf("lab: step %q on backend %q: %w (it runs on: %s)", s.Name, backendName, ErrUnknown, strings.Join(backendsOf(s), ", "))
	}
	if p.Config, err = s.Resolve(cfg); err != nil {
		return p, err
	}
	p.backend = b
	return p, nil
}

// Configure returns the plan with another configuration, resolved against
// the same step on the same backend: no name is looked up again. An edge
// that learns the configuration after the step (a tile given per step on
// the command line) uses it.
func (p Plan) Configure(cfg Config) (Plan, error) {
	if !p.Resolved() {
		return p, fmt.Errorf("lab: run %s: the plan is not resolved (lab.Resolve): %w", p.Name, ErrUnknown)
	}
	c, err := p.Step.Resolve(cfg)
	if err != nil {
		return p, err
	}
	p.Config = c
	return p, nil
}

// ownKernel resolves a kernel of one's own simulated under name: under the
// name of a step, or of a broken kernel of one, it takes the step's
// defaults; under another name, the configuration as given.
func ownKernel(name, backendName string, k StencilKernel, cfg Config) (Plan, error) {
	if backendName != Sim {
		return Plan{}, fmt.Errorf("lab: run %s: a kernel of one's own runs on the simulator, not on %q", name, backendName)
	}
	p := Plan{Name: name, Step: Step3{Step: Step{Name: name}}, Kernel: k, Backend: Sim, Config: cfg}
	if s, _, err := lookupRun(name); err == nil {
		p.Step = s
		if p.Config, err = s.Resolve(cfg); err != nil {
			return p, err
		}
	}
	p.backend, _ = backend(Sim)
	return p, nil
}

// lookupRun finds the 3D step a run names: a step by name or alias, or
// the step of a broken kernel by the kernel's name, with that kernel.
func lookupRun(name string) (Step3, StencilKernel, error) {
	for _, s := range Steps3() {
		if s.Name == name || slices.Contains(s.Aliases, name) {
			return s, nil, nil
		}
		for _, b := range s.Broken {
			if b.Name == name {
				return s, b.Kernel, nil
			}
		}
	}
	return Step3{}, nil, unknown3(name)
}

// backendsOf returns the names of the backends that run s, sorted.
func backendsOf(s Step3) []string {
	backends.mu.RLock()
	defer backends.mu.RUnlock()
	var bs []string
	for name, b := range backends.m {
		if b.Supports(s) {
			bs = append(bs, name)
		}
	}
	slices.Sort(bs)
	return bs
}
