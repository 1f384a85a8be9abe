package halo

import (
	"errors"

	"stencillab.dev/lab"
)

// Comm moves halo data between ranks. B is the buffer type: []float32 on
// the CPU, a device buffer on a GPU. Offsets and counts are in float32
// elements of the rank's local grid buffer.
//
// Messages from one rank to another match in the order they were sent
// (FIFO per pair); a receive whose count differs from the matching send's
// is an error naming both.
type Comm[B any] interface {
	// Rank returns this rank's index, 0 … Size−1.
	Rank() int
	// Size returns the number of ranks.
	Size() int
	// Send sends n elements of src from off to rank peer.
	Send(src B, off, n, peer int) error
	// Recv receives n elements from rank peer into dst at off.
	Recv(dst B, off, n, peer int) error
	// Group issues the sends and receives made inside f together, as
	// ncclGroupStart/End: no order among them can deadlock. Outside a
	// group, Send and Recv are blocking (a send waits for the matching
	// receive). A buffer given to a send or receive of the group must not
	// be touched before Group returns.
	Group(f func() error) error
}

// Packer gathers strided blocks of a buffer into a contiguous one and
// scatters them back: the y faces of a pencil, h rows of every local
// plane, are not contiguous in the local grid. A Comm that also
// implements Packer can exchange pencils' y faces; Exchange packs each
// face into a staging buffer, sends it as one message and unpacks what it
// receives. On a GPU, Pack and Unpack are one 2D copy (cuMemcpy2D) on the
// communicator's stream, ordered before its sends and after its receives.
type Packer[B any] interface {
	// Alloc returns a staging buffer of n elements.
	Alloc(n int) (B, error)
	// Free releases a buffer of Alloc.
	Free(b B) error
	// Pack copies count blocks of n elements, the i-th starting at
	// srcOff + i·stride of src, one after the other into dst from dstOff.
	Pack(dst B, dstOff int, src B, srcOff, n, stride, count int) error
	// Unpack is Pack's inverse: it copies count blocks of n elements,
	// one after the other in src from srcOff, into dst at dstOff +
	// i·stride.
	Unpack(dst B, dstOff, n, stride, count int, src B, srcOff int) error
}

// ErrDeadlock is wrapped by the error every blocked call returns when all
// live ranks wait on one another and no send can meet its receive.
var ErrDeadlock = errors.New("deadlock")

// ErrComm is wrapped by the errors of a communicator's misuse: a peer out
// of range or itself, an offset or count outside the buffer, a receive
// whose count differs from the matching send's.
var ErrComm = errors.New("halo communication")

// maxRanks bounds a world's ranks, as lab.MaxRanks bounds a split's.
const maxRanks = lab.MaxRanks

// maxStaging bounds a staging buffer, as lab.MaxPoints bounds a grid.
const maxStaging = lab.MaxPoints
