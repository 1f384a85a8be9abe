package gpu

import "fmt"

// CopyInterior copies the interior points of the nz×ny×nx grid in src into
// dst with the interior copy kernel (cuda/copy_interior.cu) and times it.
// Boundary points of dst are not written, as in a sweep: it moves the
// bytes a seven-point sweep moves at the least, under the same contract.
func (d *Device) CopyInterior(dst, src *Buffer, nz, ny, nx int) (Launch, error) {
	f, g, a, err := d.interiorLaunch(dst, src, nz, ny, nx)
	if err != nil {
		return Launch{}, err
	}
	ms, err := d.launch(f, g, a, true)
	return Launch{Geometry: g, Millis: ms}, err
}

// MeasureCopyInterior times the interior copy of an nz×ny×nx grid from src
// to dst: warmup untimed launches, then reps timed ones. It moves 8 bytes
// per interior point, (nz−2)(ny−2)(nx−2) of them.
func (d *Device) MeasureCopyInterior(dst, src *Buffer, nz, ny, nx int, warmup, reps int) (Measurement, error) {
	f, g, a, err := d.interiorLaunch(dst, src, nz, ny, nx)
	if err != nil {
		return Measurement{}, err
	}
	return d.measure(f, g, a, warmup, reps)
}

func (d *Device) interiorLaunch(dst, src *Buffer, nz, ny, nx int) (*Function, Geometry, *Args, error) {
	g, entry, err := interiorGeometry(nz, ny, nx, d.props)
	if err != nil {
		return nil, Geometry{}, nil, err
	}
	if err := d.checkGridBuffers("interior copy", dst, src, nz, ny, nx); err != nil {
		return nil, Geometry{}, nil, err
	}
	f, err := d.memFunction("copy_interior", entry)
	if err != nil {
		return nil, Geometry{}, nil, err
	}
	return f, g, interiorArgs(src.ptr, dst.ptr, int32(nz), int32(ny), int32(nx)), nil
}

// interiorGeometry is the interior copy's launch for an nz×ny×nx grid and
// the entry it runs: copy_interior4, one float4 of a row per thread, when
// rows are a multiple of 4 points long, else copy_interior1, one point per
// thread. Blocks are 128×2 threads and follow memory order: x, then y,
// then one plane per grid z.
func interiorGeometry(nz, ny, nx int, p Props) (Geometry, string, error) {
	if nz < 3 || ny < 3 || nx < 3 {
		return Geometry{}, "", fmt.Errorf("gpu: interior copy: grid %d×%d×%d: every side must be at least 3", nz, ny, nx)
	}
	entry, xs := "copy_interior1", nx-2
	if nx%4 == 0 {
		entry, xs = "copy_interior4", nx/4
	}
	g := Geometry{Block: [3]int{128, 2, 1}, Grid: [3]int{ceilDiv(xs, 128), ceilDiv(ny-2, 2), nz - 2}}
	if err := checkGeometry(g, p, 0, 0); err != nil {
		return Geometry{}, "", fmt.Errorf("gpu: interior copy: %w", err)
	}
	return g, entry, nil
}
