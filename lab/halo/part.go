// Package halo splits a 3D stencil run over several ranks: the domain
// decomposition (z-slabs, or pencils in z and y), the halo exchange
// between neighbouring ranks through a communicator, and the CPU driver
// that runs the split with goroutines as ranks.
//
// A rank owns a box of the grid's interior points, all nx columns wide,
// and holds h planes (rows) of its neighbours' points around it: its halo.
// A sweep needs h = 1 and an exchange after every time step; a temporally
// blocked pass of k time steps needs h = k and exchanges k planes every k
// steps (deep halos, which trade bytes for fewer messages). The local grid
// of a rank is an ordinary grid: the backend's own sweep runs on it, its
// faces acting as a fixed boundary, and the points a face corrupts never
// reach the owned box before the next exchange replaces them.
//
// Comm is the communicator's interface, generic in the buffer type so that
// the same Exchange runs on []float32 between goroutines (ChanComm) and on
// device buffers between GPUs (the gpu package's NCCL communicator).
//
// Importing the package registers the split for the cpu and sim backends:
// lab.Execute of a Run whose Split has Ranks > 1 runs here.
package halo

import (
	"fmt"
	"math"

	"stencillab.dev/lab"
)

// Part is one rank's box of the global nz×ny×nx grid.
type Part struct {
	Rank, Ranks int
	Z0, Z1      int // owned global planes [Z0, Z1), interior planes only (1 ≤ Z0 < Z1 ≤ nz−1)
	Y0, Y1      int // owned global rows (pencils); 1, ny−1 for slabs
	Halo        int // h: 1 for a sweep, k for a temporally blocked pass of k steps
	// The local grid the rank holds: global planes [LZ0, LZ1) × rows
	// [LY0, LY1) × all nx columns, LZ0 = max(Z0−h, 0), LZ1 = min(Z1+h,
	// nz); the same for y.
	LZ0, LZ1, LY0, LY1     int
	Down, Up, South, North int // neighbour ranks (−1 = none): z−1, z+1, y−1, y+1
	// NZ, NY, NX are the global grid's sides; PZ, PY the ranks along z
	// and y, and IZ, IY this rank's place among them (Rank = IZ·PY + IY).
	NZ, NY, NX int
	PZ, PY     int
	IZ, IY     int
}

// LocalNZ returns the planes of the rank's local grid.
func (p Part) LocalNZ() int { return p.LZ1 - p.LZ0 }

// LocalNY returns the rows of the rank's local grid.
func (p Part) LocalNY() int { return p.LY1 - p.LY0 }

// LocalLen returns the float32 elements of the rank's local grid.
func (p Part) LocalLen() int { return p.LocalNZ() * p.LocalNY() * p.NX }

// Owned returns the interior points the rank computes: its owned planes
// times its owned rows times the nx − 2 interior columns.
func (p Part) Owned() int64 {
	return int64(p.Z1-p.Z0) * int64(p.Y1-p.Y0) * int64(max(p.NX-2, 0))
}

// Local returns the offset, in float32 elements of the local grid, of the
// global point (z, y, x), which must lie in the local box.
func (p Part) Local(z, y, x int) int {
	return ((z-p.LZ0)*p.LocalNY()+(y-p.LY0))*p.NX + x
}

// String describes the part, e.g. "rank 1/4: planes [3, 5) rows [1, 9) halo 1".
func (p Part) String() string {
	return fmt.Sprintf("rank %d/%d: planes [%d, %d) rows [%d, %d) halo %d", p.Rank, p.Ranks, p.Z0, p.Z1, p.Y0, p.Y1, p.Halo)
}

// Decompose splits the interior of an nz×ny×nx grid over ranks: ranks/py
// slabs along z, each cut into py pencils along y (py 0 or 1: z-slabs).
// Rank r sits at z index r/py and y index r%py. The owned planes (rows)
// are balanced: their counts differ by at most one, the first ranks
// taking one more when nz − 2 (ny − 2) does not divide. With more than one
// rank along an axis, each must own at least halo planes (rows), so that
// its neighbours' halos come from points it owns; anything else is an
// error naming the limit, wrapping lab.ErrSize.
func Decompose(nz, ny, nx, ranks, py, halo int) ([]Part, error) {
	switch {
	case nz < 3 || ny < 3 || nx < 3:
		return nil, fmt.Errorf("halo: decompose %d×%d×%d: every side must be at least 3 to have an interior point: %w", nz, ny, nx, lab.ErrSize)
	case float64(nz)*float64(ny)*float64(nx) > lab.MaxPoints:
		return nil, fmt.Errorf("halo: decompose %d×%d×%d: the grid exceeds the limit of %d points: %w", nz, ny, nx, int64(lab.MaxPoints), lab.ErrSize)
	case ranks < 1 || ranks > lab.MaxRanks:
		return nil, fmt.Errorf("halo: decompose over %d ranks: the count must be from 1 to %d: %w", ranks, lab.MaxRanks, lab.ErrSize)
	case py < 0 || py > ranks:
		return nil, fmt.Errorf("halo: decompose over %d ranks with %d along y: want 0 to %d along y: %w", ranks, py, ranks, lab.ErrSize)
	case halo < 1:
		return nil, fmt.Errorf("halo: decompose with halo %d: the halo must be at least 1 plane: %w", halo, lab.ErrSize)
	}
	py = max(py, 1)
	if ranks%py != 0 {
		return nil, fmt.Errorf("halo: decompose: %d ranks along y do not divide %d ranks: %w", py, ranks, lab.ErrSize)
	}
	pz := ranks / py
	// halo > n/p, not p·halo > n: the product of a huge halo overflows.
	if pz > 1 && halo > (nz-2)/pz {
		return nil, fmt.Errorf("halo: decompose: %d ranks along z × halo %d need %s interior planes; the grid has %d: %w",
			pz, halo, atLeast(pz, halo), nz-2, lab.ErrSize)
	}
	if py > 1 && halo > (ny-2)/py {
		return nil, fmt.Errorf("halo: decompose: %d ranks along y × halo %d need %s interior rows; the grid has %d: %w",
			py, halo, atLeast(py, halo), ny-2, lab.ErrSize)
	}
	// Along an axis of one rank the halo reaches past the grid's faces,
	// which clip it: no local box is larger than the grid, and a halo
	// larger than a side clips as the side does, without overflowing.
	hz, hy := min(halo, nz), min(halo, ny)
	zs := balance(nz-2, pz)
	ys := balance(ny-2, py)
	parts := make([]Part, ranks)
	for r := range parts {
		iz, iy := r/py, r%py
		p := Part{Rank: r, Ranks: ranks, Halo: halo, NZ: nz, NY: ny, NX: nx, PZ: pz, PY: py, IZ: iz, IY: iy,
			Z0: zs[iz], Z1: zs[iz+1], Y0: ys[iy], Y1: ys[iy+1],
			Down: -1, Up: -1, South: -1, North: -1}
		p.LZ0, p.LZ1 = max(p.Z0-hz, 0), min(p.Z1+hz, nz)
		p.LY0, p.LY1 = max(p.Y0-hy, 0), min(p.Y1+hy, ny)
		if iz > 0 {
			p.Down = r - py
		}
		if iz < pz-1 {
			p.Up = r + py
		}
		if iy > 0 {
			p.South = r - 1
		}
		if iy < py-1 {
			p.North = r + 1
		}
		parts[r] = p
	}
	return parts, nil
}

// atLeast says how many planes p ranks of h planes each need: "at least
// p·h", or "more than MaxInt64" when the product overflows.
func atLeast(p, h int) string {
	if h > math.MaxInt64/p {
		return fmt.Sprintf("more than %d", int64(math.MaxInt64))
	}
	return fmt.Sprintf("at least %d", int64(p)*int64(h))
}

// balance returns the p+1 bounds that cut the n interior indices 1…n into
// p runs whose lengths differ by at most one, the longer first.
func balance(n, p int) []int {
	b := make([]int, p+1)
	b[0] = 1
	base, extra := n/p, n%p
	for i := range p {
		l := base
		if i < extra {
			l++
		}
		b[i+1] = b[i] + l
	}
	return b
}

// Surface is one rank's surface to volume: the interior points it
// computes against the halo points it receives in one exchange.
type Surface struct {
	Rank     int
	Interior int64   // points the rank computes per time step (Part.Owned)
	Halo     int64   // points it receives per exchange (its halo planes and rows, as Exchange sends them)
	Ratio    float64 // Halo / Interior
}

// Volume returns each part's surface to volume, the halo points received
// per exchange counted as Exchange moves them: h planes of the local
// rows from each z neighbour, then h rows of the local planes from each y
// neighbour.
func Volume(parts []Part) []Surface {
	out := make([]Surface, len(parts))
	for i, p := range parts {
		s := Surface{Rank: p.Rank, Interior: p.Owned(), Halo: int64(HaloLen(p))}
		if s.Interior > 0 {
			s.Ratio = float64(s.Halo) / float64(s.Interior)
		}
		out[i] = s
	}
	return out
}

// HaloLen returns the float32 elements a part receives in one exchange:
// h·(local rows)·nx from each z neighbour and h·(local planes)·nx from
// each y neighbour.
func HaloLen(p Part) int {
	n := 0
	for _, nb := range []int{p.Down, p.Up} {
		if nb >= 0 {
			n += p.Halo * p.LocalNY() * p.NX
		}
	}
	for _, nb := range []int{p.South, p.North} {
		if nb >= 0 {
			n += p.Halo * p.LocalNZ() * p.NX
		}
	}
	return n
}
