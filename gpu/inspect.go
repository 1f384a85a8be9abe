package gpu

import (
	"fmt"
	"path"
	"strings"
)

// SourcePTX compiles text, named file, with defines to PTX for this
// device's virtual architecture (compute_XY) with the options of
// CompileSource, and returns the PTX: what NVRTC made of the source, for a
// grader to inspect (its shared memory, barriers and loads) and to
// instrument (LoadPTX). As CompileSource, it compiles a text its caller
// has checked (exercises/cudacheck).
func (d *Device) SourcePTX(file, text string, defines []Define) (string, error) {
	file = path.Base(file)
	if !strings.HasSuffix(file, ".cu") {
		return "", fmt.Errorf("gpu: source %q: the file name must end in .cu", file)
	}
	if len(text) > MaxSource {
		return "", fmt.Errorf("gpu: %s has %d bytes, over the limit of %d", file, len(text), MaxSource)
	}
	if err := loadNVRTC(); err != nil {
		return "", err
	}
	supported, _ := drv.NVRTCSupportedArchs()
	target, _, err := chooseTarget(d.props.Major, d.props.Minor, supported, false)
	if err != nil {
		return "", err
	}
	opts := compileOptions(target, defines)
	image, log, call, code := drv.NVRTCCompile(text, file, opts, false)
	if code != 0 {
		e := &NVRTCError{Call: call, Code: code, Name: nvrtcErrorName(code), Log: log}
		if log != "" {
			return "", &CompileLogError{File: file, Log: log, err: e}
		}
		return "", fmt.Errorf("gpu: compile %s to PTX (%s): %w", file, strings.Join(opts, " "), e)
	}
	return strings.TrimRight(string(image), "\x00"), nil
}

// LoadPTX loads ptx (a PTX text, such as an instrumented copy of what
// SourcePTX returned) and returns its kernel entry, launched with the
// geometry geom returns, as CompileSource's kernels are. The module is not
// cached: each call loads its own.
func (d *Device) LoadPTX(file, ptx, entry string, geom func(nz, ny, nx int) (Geometry, error)) (*SourceKernel, error) {
	file = path.Base(file)
	if !validIdent(entry) {
		return nil, fmt.Errorf("gpu: %s: entry %q is not a C identifier", file, entry)
	}
	if geom == nil {
		return nil, fmt.Errorf("gpu: %s: no launch geometry", file)
	}
	if ptx == "" {
		return nil, fmt.Errorf("gpu: %s: an empty PTX text", file)
	}
	m := &Module{Source: strings.TrimSuffix(file, ".cu"), Target: "ptx", d: d, funcs: map[string]*Function{}}
	err := d.do(func() error {
		h, r := drv.ModuleLoadData([]byte(ptx))
		if err := cuCheck("cuModuleLoadData", r); err != nil {
			return err
		}
		m.handle = h
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: load the PTX of %s: %w", file, err)
	}
	f, err := m.Function(entry)
	if err != nil {
		return nil, err
	}
	return &SourceKernel{d: d, file: file, mod: m, fn: f, geom: geom}, nil
}

// Address returns the buffer's device address, which a kernel's code may
// name as a constant (an instrumented kernel's counters).
func (b *Buffer) Address() uint64 { return b.ptr }
