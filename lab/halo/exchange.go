package halo

import (
	"errors"
	"fmt"
)

// Exchange sends the rank's owned edge planes (rows) to its neighbours'
// halos and receives its own halos, h deep, in one Group per axis. It is
// generic so that the gpu package can call it with device buffers. buf is
// the rank's local grid, p.LocalNZ()×p.LocalNY()×nx elements.
//
// Along z a message is h whole planes of the local grid (its halo rows
// included), contiguous in buf. Pencils then exchange along y, h rows of
// every local plane, z halos included: the rows are strided, so c must
// also be a Packer, and each face travels packed as one message. The y
// exchange after the z one carries the corners (a z halo's y halo rows),
// which a temporally blocked pass of k ≥ 2 steps reads.
//
// Exchange allocates the staging buffers of pencils on every call; a
// loop keeps an Exchanger instead.
func Exchange[B any](c Comm[B], buf B, p Part, nx int) (err error) {
	e, err := NewExchanger(c, p, nx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, e.Close()) }()
	return e.Exchange(buf)
}

// Exchanger exchanges one part's halos exchange after exchange, its
// staging buffers for pencils allocated once.
type Exchanger[B any] struct {
	c      Comm[B]
	p      Part
	nx     int
	pk     Packer[B]
	stage  [4]B // send south, send north, receive south, receive north
	staged bool
}

// NewExchanger checks that p belongs to c's rank and world and prepares
// its exchanges; pencils need c to be a Packer.
func NewExchanger[B any](c Comm[B], p Part, nx int) (*Exchanger[B], error) {
	if c == nil {
		return nil, fmt.Errorf("halo: exchange of %s: nil communicator: %w", p, ErrComm)
	}
	if err := checkPart(p, nx); err != nil {
		return nil, err
	}
	if c.Rank() != p.Rank || c.Size() != p.Ranks {
		return nil, fmt.Errorf("halo: exchange of %s with the communicator of rank %d/%d: the part belongs to another rank or world: %w",
			p, c.Rank(), c.Size(), ErrComm)
	}
	e := &Exchanger[B]{c: c, p: p, nx: nx}
	if p.South >= 0 || p.North >= 0 {
		pk, ok := c.(Packer[B])
		if !ok {
			return nil, fmt.Errorf("halo: exchange of %s: pencils exchange strided y faces and the communicator %T has no Packer: %w", p, c, ErrComm)
		}
		e.pk = pk
		n := p.Halo * p.LocalNZ() * nx
		for i := range e.stage {
			b, err := pk.Alloc(n)
			if err != nil {
				for _, s := range e.stage[:i] {
					_ = pk.Free(s)
				}
				return nil, fmt.Errorf("halo: exchange of %s: staging buffer %d of %d elements: %w", p, i, n, err)
			}
			e.stage[i] = b
		}
		e.staged = true
	}
	return e, nil
}

// checkPart checks that a part describes a box that Exchange can use.
func checkPart(p Part, nx int) error {
	bad := func(why string) error { return fmt.Errorf("halo: exchange of %s: %s: %w", p, why, ErrComm) }
	switch {
	case nx < 3 || (p.NX != 0 && p.NX != nx):
		return bad(fmt.Sprintf("nx %d must be at least 3 and the part's %d", nx, p.NX))
	case p.Halo < 1:
		return bad("the halo must be at least one plane")
	case p.Ranks < 1 || p.Rank < 0 || p.Rank >= p.Ranks:
		return bad("the rank lies outside its world")
	case p.LZ0 < 0 || p.LZ0 > p.Z0 || p.Z0 >= p.Z1 || p.Z1 > p.LZ1:
		return bad(fmt.Sprintf("local planes [%d, %d) must hold the owned [%d, %d)", p.LZ0, p.LZ1, p.Z0, p.Z1))
	case p.LY0 < 0 || p.LY0 > p.Y0 || p.Y0 >= p.Y1 || p.Y1 > p.LY1:
		return bad(fmt.Sprintf("local rows [%d, %d) must hold the owned [%d, %d)", p.LY0, p.LY1, p.Y0, p.Y1))
	}
	h := p.Halo
	for _, nb := range []struct {
		what   string
		rank   int
		lo, hi int // the local grid's edge and the halo's: equal with a neighbour
		own    int // the planes (rows) the rank owns along the axis
	}{
		{"below", p.Down, p.Z0 - h, p.LZ0, p.Z1 - p.Z0},
		{"above", p.Up, p.LZ1, p.Z1 + h, p.Z1 - p.Z0},
		{"south", p.South, p.Y0 - h, p.LY0, p.Y1 - p.Y0},
		{"north", p.North, p.LY1, p.Y1 + h, p.Y1 - p.Y0},
	} {
		switch {
		case nb.rank < -1 || nb.rank >= p.Ranks || nb.rank == p.Rank:
			return bad(fmt.Sprintf("the neighbour %s, rank %d, is not another rank of the world", nb.what, nb.rank))
		case nb.rank >= 0 && nb.lo != nb.hi:
			return bad(fmt.Sprintf("the halo %s must be %d deep inside the local grid", nb.what, h))
		case nb.rank >= 0 && nb.own < h:
			return bad(fmt.Sprintf("it owns %d planes (rows), fewer than the halo %d its neighbour %s needs", nb.own, h, nb.what))
		}
	}
	if int64(p.LZ1-p.LZ0)*int64(p.LY1-p.LY0)*int64(nx) > maxStaging {
		return bad("the local grid exceeds the limit of points of a grid")
	}
	return nil
}

// Exchange runs one exchange of the part's halos in buf, its local grid.
func (e *Exchanger[B]) Exchange(buf B) error {
	p, nx, h, c := e.p, e.nx, e.p.Halo, e.c
	plane := p.LocalNY() * nx
	zoff := func(z int) int { return (z - p.LZ0) * plane }
	if p.Down >= 0 || p.Up >= 0 {
		err := c.Group(func() error {
			if err := swap(c, p.Down, h*plane, buf, zoff(p.Z0), buf, zoff(p.Z0-h)); err != nil {
				return err
			}
			return swap(c, p.Up, h*plane, buf, zoff(p.Z1-h), buf, zoff(p.Z1))
		})
		if err != nil {
			return fmt.Errorf("halo: exchange along z of %s: %w", p, err)
		}
	}
	if p.South < 0 && p.North < 0 {
		return nil
	}
	if !e.staged {
		return fmt.Errorf("halo: exchange along y of %s: the exchanger is closed: %w", p, ErrComm)
	}
	n, count, face := h*nx, p.LocalNZ(), h*nx*p.LocalNZ()
	yoff := func(y int) int { return (y - p.LY0) * nx }
	pk, st := e.pk, e.stage
	if p.South >= 0 {
		if err := pk.Pack(st[0], 0, buf, yoff(p.Y0), n, plane, count); err != nil {
			return fmt.Errorf("halo: pack the south face of %s: %w", p, err)
		}
	}
	if p.North >= 0 {
		if err := pk.Pack(st[1], 0, buf, yoff(p.Y1-h), n, plane, count); err != nil {
			return fmt.Errorf("halo: pack the north face of %s: %w", p, err)
		}
	}
	err := c.Group(func() error {
		if err := swap(c, p.South, face, st[0], 0, st[2], 0); err != nil {
			return err
		}
		return swap(c, p.North, face, st[1], 0, st[3], 0)
	})
	if err != nil {
		return fmt.Errorf("halo: exchange along y of %s: %w", p, err)
	}
	if p.South >= 0 {
		if err := pk.Unpack(buf, yoff(p.Y0-h), n, plane, count, st[2], 0); err != nil {
			return fmt.Errorf("halo: unpack the south halo of %s: %w", p, err)
		}
	}
	if p.North >= 0 {
		if err := pk.Unpack(buf, yoff(p.Y1), n, plane, count, st[3], 0); err != nil {
			return fmt.Errorf("halo: unpack the north halo of %s: %w", p, err)
		}
	}
	return nil
}

// swap sends n elements of src from srcOff to rank peer and receives n
// from it into dst at dstOff, the send first; with no peer (−1) it does
// nothing.
func swap[B any](c Comm[B], peer, n int, src B, srcOff int, dst B, dstOff int) error {
	if peer < 0 {
		return nil
	}
	if err := c.Send(src, srcOff, n, peer); err != nil {
		return err
	}
	return c.Recv(dst, dstOff, n, peer)
}

// Close frees the staging buffers; the exchanger exchanges z faces only
// afterwards.
func (e *Exchanger[B]) Close() error {
	if !e.staged {
		return nil
	}
	e.staged = false
	var errs []error
	for _, b := range e.stage {
		if err := e.pk.Free(b); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
