package gpu

import (
	"encoding/binary"
	"fmt"
	"math"

	"stencillab.dev/gpu/cu"
)

// Args packs kernel arguments as the driver expects them: each value at
// an offset aligned to its size, cuLaunchKernel receiving a pointer to
// each. The buffer holds no Go pointers, so it may be passed to C.
type Args struct {
	buf     []byte
	offsets []int
	kinds   []string // each argument's C type, for the checks of the launchers against the kernels
}

func (a *Args) place(size, align int) []byte {
	off := (len(a.buf) + align - 1) / align * align
	for len(a.buf) < off+size {
		a.buf = append(a.buf, 0)
	}
	a.offsets = append(a.offsets, off)
	return a.buf[off : off+size]
}

// Ptr adds a device pointer.
func (a *Args) Ptr(p uint64) *Args {
	binary.LittleEndian.PutUint64(a.place(8, 8), p)
	a.kinds = append(a.kinds, "pointer")
	return a
}

// I32 adds a C int.
func (a *Args) I32(v int32) *Args {
	binary.LittleEndian.PutUint32(a.place(4, 4), uint32(v))
	a.kinds = append(a.kinds, "int")
	return a
}

// I64 adds a C long long.
func (a *Args) I64(v int64) *Args {
	binary.LittleEndian.PutUint64(a.place(8, 8), uint64(v))
	a.kinds = append(a.kinds, "long long")
	return a
}

// U64 adds a C unsigned long long.
func (a *Args) U64(v uint64) *Args {
	binary.LittleEndian.PutUint64(a.place(8, 8), v)
	a.kinds = append(a.kinds, "unsigned long long")
	return a
}

// F32 adds a C float.
func (a *Args) F32(v float32) *Args {
	binary.LittleEndian.PutUint32(a.place(4, 4), math.Float32bits(v))
	a.kinds = append(a.kinds, "float")
	return a
}

// F64 adds a C double.
func (a *Args) F64(v float64) *Args {
	binary.LittleEndian.PutUint64(a.place(8, 8), math.Float64bits(v))
	a.kinds = append(a.kinds, "double")
	return a
}

// Floats adds a struct of len(v) floats passed by value.
func (a *Args) Floats(v []float32) *Args {
	b := a.place(4*len(v), 4)
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	a.kinds = append(a.kinds, fmt.Sprintf("struct of %d floats", len(v)))
	return a
}

// handle is an opaque pointer owned by the CUDA driver: a context, module,
// function or event.
type handle = cu.Handle

// drv is the binding every call into the libraries goes through: the
// dlopen'd libraries, or a test's fake.
var drv cu.API = cu.Lib{}
