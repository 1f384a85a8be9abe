package gpu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"stencillab.dev/cuda"
)

// Define is one preprocessor define passed to NVRTC as -DNAME=VALUE.
type Define struct {
	Name  string
	Value string
}

// String returns NAME=VALUE.
func (d Define) String() string { return d.Name + "=" + d.Value }

// ParseDefine parses NAME=VALUE, or NAME alone meaning NAME=1.
func ParseDefine(s string) (Define, error) {
	name, value, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		value = "1"
	}
	if !validIdent(name) {
		return Define{}, fmt.Errorf("gpu: define %q: %q is not a C identifier", s, name)
	}
	if strings.ContainsAny(value, " \t\n\"'\\") || value == "" {
		return Define{}, fmt.Errorf("gpu: define %q: the value must be one word without quotes", s)
	}
	return Define{Name: name, Value: value}, nil
}

func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// defineFlags returns the -D options for defs, in order.
func defineFlags(defs []Define) []string {
	flags := make([]string, len(defs))
	for i, d := range defs {
		flags[i] = "-D" + d.Name + "=" + d.Value
	}
	return flags
}

// compileOptions returns NVRTC's options for a target ("sm_90" for a
// CUBIN, "compute_90" for PTX) and defines.
func compileOptions(target string, defs []Define) []string {
	opts := []string{"--gpu-architecture=" + target, "--std=c++17", "--generate-line-info"}
	return append(opts, defineFlags(defs)...)
}

// chooseTarget picks what NVRTC compiles to for a device of compute
// capability major.minor: a CUBIN for the device's own sm_XY when NVRTC
// can write CUBINs and knows the architecture (supported lists the
// architectures it knows, nil when it cannot say); otherwise PTX for the
// newest virtual architecture it knows that the device can run, which the
// driver then compiles at load.
func chooseTarget(major, minor int, supported []int, canCUBIN bool) (target string, cubin bool, err error) {
	arch := major*10 + minor
	if canCUBIN && (supported == nil || slices.Contains(supported, arch)) {
		return fmt.Sprintf("sm_%d", arch), true, nil
	}
	if supported == nil {
		return fmt.Sprintf("compute_%d", arch), false, nil
	}
	best := 0
	for _, a := range supported {
		if a <= arch && a > best {
			best = a
		}
	}
	if best == 0 {
		s := make([]string, len(supported))
		for i, a := range supported {
			s[i] = fmt.Sprintf("sm_%d", a)
		}
		return "", false, fmt.Errorf("gpu: NVRTC cannot compile for sm_%d or any older architecture (it knows %s)", arch, strings.Join(s, ", "))
	}
	return fmt.Sprintf("compute_%d", best), false, nil
}

// Module is a compiled and loaded CUDA source.
type Module struct {
	Source      string        // the cuda package's name for it, e.g. "copy"
	Defines     []Define      // the defines it was compiled with
	Target      string        // sm_XY (CUBIN) or compute_XY (PTX)
	CUBIN       bool          // whether NVRTC wrote machine code (else PTX for the driver)
	CompileTime time.Duration // NVRTC's time, zero when the module came from the cache
	Log         string        // NVRTC's messages (warnings), if any

	d      *Device
	handle handle
	mu     sync.Mutex
	funcs  map[string]*Function
}

// Function is a kernel of a loaded module, with the resources its compiled
// code uses.
type Function struct {
	Name         string // the extern "C" name
	Registers    int    // registers per thread
	StaticShared int    // statically declared shared memory, bytes per block
	LocalBytes   int    // local memory per thread (register spills, stack)
	MaxThreads   int    // the most threads per block this code can launch with

	m            *Module
	handle       handle
	dynamicLimit int // dynamic shared memory the kernel has opted in to (worker thread only)
}

// Module compiles the named source of package cuda with defines for this
// device, or returns it from the device's cache: one compilation per
// source text, defines and architecture.
func (d *Device) Module(source string, defines []Define) (*Module, error) {
	return d.moduleOf([]string{source}, defines)
}

// moduleOf compiles the named sources of package cuda, joined in order, as
// one program (shared device functions first), cached like Module. The
// module takes the name of the last source.
func (d *Device) moduleOf(sources []string, defines []Define) (*Module, error) {
	parts := make([]string, len(sources))
	for i, name := range sources {
		text, err := cuda.Source(name)
		if err != nil {
			return nil, fmt.Errorf("gpu: %w", err)
		}
		parts[i] = text
	}
	m, err := d.compile(sources[len(sources)-1], strings.Join(parts, "\n"), defines)
	if err != nil && len(sources) > 1 {
		return nil, fmt.Errorf("gpu: compile %s.cu: %w", strings.Join(sources, ".cu + "), err)
	}
	return m, err
}

// compile compiles the CUDA C text src, named source, with defines for this
// device, or returns it from the device's cache: one compilation per
// source text, defines and architecture.
func (d *Device) compile(source, src string, defines []Define) (*Module, error) {
	sum := sha256.Sum256([]byte(src))
	key := source + "|" + hex.EncodeToString(sum[:8]) + "|" + d.props.Arch() + "|" + strings.Join(defineFlags(defines), " ")
	d.state.Lock()
	m, ok := d.modules[key]
	d.state.Unlock()
	if ok {
		return m, nil
	}
	if err := loadNVRTC(); err != nil {
		return nil, err
	}
	supported, _ := drv.NVRTCSupportedArchs()
	target, cubin, err := chooseTarget(d.props.Major, d.props.Minor, supported, drv.NVRTCHasCUBIN())
	if err != nil {
		return nil, err
	}
	opts := compileOptions(target, defines)
	start := time.Now()
	image, log, call, code := drv.NVRTCCompile(src, source+".cu", opts, cubin)
	elapsed := time.Since(start)
	if code != 0 {
		e := &NVRTCError{Call: call, Code: code, Name: nvrtcErrorName(code), Log: log}
		return nil, fmt.Errorf("gpu: compile %s.cu (%s): %w", source, strings.Join(opts, " "), e)
	}
	m = &Module{Source: source, Defines: slices.Clone(defines), Target: target, CUBIN: cubin,
		CompileTime: elapsed, Log: log, d: d, funcs: map[string]*Function{}}
	err = d.do(func() error {
		h, r := drv.ModuleLoadData(image)
		if err := cuCheck("cuModuleLoadData", r); err != nil {
			return err
		}
		m.handle = h
		d.state.Lock()
		defer d.state.Unlock()
		if old, ok := d.modules[key]; ok { // compiled meanwhile by another goroutine
			drv.ModuleUnload(h)
			m = old
			return nil
		}
		d.modules[key] = m
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: load %s.cu for %s: %w", source, target, err)
	}
	return m, nil
}

// Function attributes (CUfunction_attribute values).
const (
	funcAttrMaxThreads       = 0
	funcAttrSharedStatic     = 1
	funcAttrLocalBytes       = 3
	funcAttrRegisters        = 4
	funcAttrMaxDynamicShared = 8
)

// Function returns the kernel called name (its extern "C" name).
func (m *Module) Function(name string) (*Function, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.funcs[name]; ok {
		return f, nil
	}
	f := &Function{Name: name, m: m}
	err := m.d.do(func() error {
		h, r := drv.ModuleGetFunction(m.handle, name)
		if err := cuCheck("cuModuleGetFunction", r); err != nil {
			return err
		}
		f.handle = h
		for _, a := range []struct {
			id  int
			dst *int
		}{
			{funcAttrMaxThreads, &f.MaxThreads},
			{funcAttrSharedStatic, &f.StaticShared},
			{funcAttrLocalBytes, &f.LocalBytes},
			{funcAttrRegisters, &f.Registers},
		} {
			v, r := drv.FuncGetAttribute(a.id, h)
			if err := cuCheck("cuFuncGetAttribute", r); err != nil {
				return err
			}
			*a.dst = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: kernel %s in %s.cu: %w", name, m.Source, err)
	}
	m.funcs[name] = f
	return f, nil
}

// Occupancy returns how many blocks of the given number of threads, each
// with dynamicShared bytes of dynamic shared memory, can be resident on
// one multiprocessor at once, as the driver computes it from the kernel's
// registers and shared memory (estimated the same way when the driver
// cannot say).
func (f *Function) Occupancy(threads, dynamicShared int) (int, error) {
	var n int
	err := f.m.d.do(func() error {
		if err := f.optIn(dynamicShared); err != nil {
			return err
		}
		var r int
		n, r = drv.OccupancyMaxActiveBlocksPerMultiprocessor(f.handle, threads, dynamicShared)
		if r == 500 { // no such driver function: estimate
			n = estimateOccupancy(f.m.d.props, threads, f.Registers, f.StaticShared+dynamicShared)
			return nil
		}
		return cuCheck("cuOccupancyMaxActiveBlocksPerMultiprocessor", r)
	})
	if err != nil {
		return 0, fmt.Errorf("gpu: occupancy of %s: %w", f.Name, err)
	}
	return n, nil
}

// optIn lets the kernel use bytes of dynamic shared memory: beyond 48 KiB
// in all (static and dynamic) a kernel must opt in before it is launched
// or its occupancy is asked for. It runs on the worker thread.
func (f *Function) optIn(bytes int) error {
	if bytes <= f.dynamicLimit {
		return nil
	}
	if f.StaticShared+bytes > 48*1024 {
		if err := cuCheck("cuFuncSetAttribute", drv.FuncSetAttribute(f.handle, funcAttrMaxDynamicShared, bytes)); err != nil {
			return err
		}
	}
	f.dynamicLimit = bytes
	return nil
}

// estimateOccupancy bounds the resident blocks per multiprocessor by
// threads, registers (65536 per multiprocessor, allocated per warp in
// units of 256) and shared memory.
func estimateOccupancy(p Props, threads, regs, shared int) int {
	if threads < 1 {
		return 0
	}
	n := 32
	if p.MaxThreadsPerSM > 0 {
		n = min(n, p.MaxThreadsPerSM/threads)
	}
	if regs > 0 {
		perWarp := (regs*32 + 255) / 256 * 256
		warps := (threads + 31) / 32
		n = min(n, 65536/(perWarp*warps))
	}
	if shared > 0 && p.SharedPerSM > 0 {
		n = min(n, p.SharedPerSM/(shared+1024))
	}
	return n
}

// memFunction returns a kernel of a source compiled without defines (the
// fill and copy kernels), caching it on the device.
func (d *Device) memFunction(source, name string) (*Function, error) {
	m, err := d.Module(source, nil)
	if err != nil {
		return nil, err
	}
	return m.Function(name)
}
