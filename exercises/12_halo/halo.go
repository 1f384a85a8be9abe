// Package exchange is exercise 12 of Stencil Lab: the halo exchange of a
// 3D grid split over several ranks (GPUs, or goroutines here), chapter 20's
// domain decomposition applied to chapter 8's sweep.
//
// # The split
//
// The interior planes of an nz×ny×nx grid are cut into z-slabs, one per
// rank (halo.Decompose): rank p.Rank owns the global planes
// [p.Z0, p.Z1) and holds a local buffer of the planes [p.LZ0, p.LZ1), each
// plane ny·nx values in row-major order, global plane z at offset
// (z − p.LZ0)·ny·nx. Around its owned planes the buffer holds h = p.Halo
// planes of each neighbour, its halo: the planes [p.Z0 − h, p.Z0) of
// rank p.Down and [p.Z1, p.Z1 + h) of rank p.Up (−1 where there is no
// neighbour, and the grid's face plane 0 or nz − 1 is then in the buffer
// already, a boundary condition). A sweep needs h = 1; a temporally
// blocked pass of k time steps needs h = k and exchanges every k steps.
//
// # Your task
//
// Write Exchange, which one rank runs (every rank runs it at the same
// time, on its own buffer local): it sends its h owned planes nearest each
// neighbour to that neighbour, as one message of h·ny·nx values, and
// receives its halo planes from them into local. Before the exchange the
// halo planes hold garbage; after it, the buffer equals the global grid's
// planes [p.LZ0, p.LZ1).
//
// The communicator c moves values between ranks: c.Send(local, off, n,
// peer) sends local[off:off+n] to rank peer, and c.Recv(local, off, n,
// peer) receives n values from rank peer into local[off:off+n]. Both
// block: a Send returns only once its peer has received it, as a large
// MPI message or NCCL outside a group. If every rank sends both its
// messages before it receives, neighbours wait for each other for ever,
// and the communicator reports the deadlock. Group, which would post them
// all at once, is refused here, and so are two calls of one rank at once
// (goroutines): the exercise is the order. Take one direction at a time
// (the planes going up, then those going down) and pair the ranks by
// parity: even ranks send first and then receive, odd ranks receive first
// and then send, so that every send meets a receive at once. (Every rank
// sending first, one direction at a time, does not deadlock on a line of
// ranks, but each send waits for the rank above to finish its own: the
// exchange takes as many steps as there are ranks instead of two.) A rank
// with no neighbour on a side skips that side.
//
// A buffer whose length is not (p.LZ1 − p.LZ0)·ny·nx, a side below 1 or a
// halo below 1 is an error, returned before any message.
//
// Check your work with `go test ./exercises/12_halo` or
// `go run ./cmd/grade 12_halo`; notebook 11 (notebooks/11_beyond_one_gpu.ipynb)
// runs the lab's own split live, and notebook 09 has the same exercise.
package exchange

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/halo"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Exchange sends the rank's h owned edge planes to its neighbours and
// receives its h-deep halo planes from them, in an order that cannot
// deadlock.
func Exchange(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
	// BEGIN SOLUTION
	h := p.Halo
	if ny < 1 || nx < 1 || h < 1 {
		return fmt.Errorf("exchange: rank %d: rows of %d×%d with halo %d: every side and the halo must be at least 1", p.Rank, ny, nx, h)
	}
	plane := ny * nx
	if want := (p.LZ1 - p.LZ0) * plane; len(local) != want {
		return fmt.Errorf("exchange: rank %d: a buffer of %d values for planes [%d, %d) of %d×%d: want %d", p.Rank, len(local), p.LZ0, p.LZ1, ny, nx, want)
	}
	at := func(z int) int { return (z - p.LZ0) * plane } // global plane z in local
	n := h * plane
	// step sends n values from sendOff to rank to and receives n values
	// from rank from into recvOff: even ranks send first, odd ranks
	// receive first, so that every send meets a receive.
	step := func(to, sendOff, from, recvOff int) error {
		send := func() error {
			if to < 0 {
				return nil
			}
			return c.Send(local, sendOff, n, to)
		}
		recv := func() error {
			if from < 0 {
				return nil
			}
			return c.Recv(local, recvOff, n, from)
		}
		first, second := send, recv
		if p.Rank%2 == 1 {
			first, second = recv, send
		}
		if err := first(); err != nil {
			return fmt.Errorf("exchange: rank %d: %w", p.Rank, err)
		}
		if err := second(); err != nil {
			return fmt.Errorf("exchange: rank %d: %w", p.Rank, err)
		}
		return nil
	}
	// Up: the top h owned planes to Up, the lower halo from Down.
	if err := step(p.Up, at(p.Z1-h), p.Down, at(p.Z0-h)); err != nil {
		return err
	}
	// Down: the bottom h owned planes to Down, the upper halo from Up.
	return step(p.Down, at(p.Z0), p.Up, at(p.Z1))
	// END SOLUTION
	// BEGIN STUB
	// return errNotImplemented
	// END STUB
}
