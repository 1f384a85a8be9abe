package multi

import (
	"fmt"

	"stencillab.dev/lab"
)

// An Overlap is a strategy of a split run: how a rank's halo exchange
// overlaps its sweep. The strategies are registered values (None, Split,
// Early, Copy, CopyEarly); a name (lab.Split.Overlap, -overlap) is looked
// up once, by LookupOverlap, and what a strategy does comes with it.
type Overlap struct {
	name string
	// whole: a pass computes every plane of the local grid in one launch,
	// so a temporally blocked step (a pass of several time steps, whose
	// boundary and interior launches would write the same planes) may use
	// it.
	whole bool
	// pencils: the strategy runs a split along y too; the others move or
	// compute whole planes.
	pencils bool
	// copies: the halos move by peer copies between the GPUs of one
	// process (cuMemcpyPeerAsync), not through NCCL.
	copies bool
	// pass enqueues pass number pass, in direction dir of the ping-pong,
	// on the rank's streams; it runs on the rank's device thread.
	pass func(mr *mrank, pp passPlans, dir, pass int) error
}

// Name returns the strategy's name, as -overlap takes it.
func (o *Overlap) Name() string { return o.name }

// String returns the strategy's name.
func (o *Overlap) String() string { return o.name }

// overlaps are the registered strategies, in registration order, and by
// name.
var (
	overlaps       []*Overlap
	overlapsByName = map[string]*Overlap{}
)

// registerOverlap registers a strategy at start-up.
func registerOverlap(o *Overlap) *Overlap {
	if o.name == "" || o.pass == nil {
		panic("multi: an overlap strategy needs a name and a pass")
	}
	if _, dup := overlapsByName[o.name]; dup {
		panic("multi: a second overlap strategy named " + o.name)
	}
	overlaps = append(overlaps, o)
	overlapsByName[o.name] = o
	return o
}

// The overlap strategies.
var (
	// None computes every owned plane, then exchanges the halos, on one
	// stream.
	None = registerOverlap(&Overlap{name: "none", whole: true, pencils: true,
		pass: func(mr *mrank, pp passPlans, dir, pass int) error {
			return mr.passNone(pp, dir, pp.out[dir], evIndex(pass, 0))
		}})
	// Split computes the boundary planes (those the neighbours need)
	// first on a high-priority stream and exchanges them there, while the
	// interior planes run on a low-priority stream beside it.
	Split = registerOverlap(&Overlap{name: "split",
		pass: func(mr *mrank, pp passPlans, dir, pass int) error {
			return mr.passSplit(pp, dir, pp.out[dir], evIndex(pass, 0), pass)
		}})
	// Early computes the boundary planes first on the compute stream,
	// then the interior on the same stream, while the exchange runs on a
	// second stream as soon as the boundary is done: the interior launch
	// keeps the whole GPU, the exchange waits for nothing but the
	// boundary.
	Early = registerOverlap(&Overlap{name: "early",
		pass: func(mr *mrank, pp passPlans, dir, pass int) error {
			return mr.passEarly(pp, dir, pp.out[dir], evIndex(pass, 0), pass)
		}})
	// Copy computes every owned plane, then each rank pushes its boundary
	// planes into its neighbours' halos with peer copies (the copy
	// engines, no NCCL kernel): one process driving every GPU only.
	Copy = registerOverlap(&Overlap{name: "copy", whole: true, copies: true,
		pass: func(mr *mrank, pp passPlans, dir, pass int) error { return mr.passCopy(pp, dir, pass, false) }})
	// CopyEarly is Early with peer copies: the boundary planes, then the
	// interior, on the compute stream, the copies beside the interior as
	// soon as the boundary is done.
	CopyEarly = registerOverlap(&Overlap{name: "copy-early", copies: true,
		pass: func(mr *mrank, pp passPlans, dir, pass int) error { return mr.passCopy(pp, dir, pass, true) }})
)

// DefaultOverlap is the strategy of a split that names none, for z-slabs
// of one step a pass driven by one process: measured on 2 × H200
// (docs/multigpu.md), copy-early reached 94.0 % at N = 512 where none
// reached 85.6 %, and 98.5 % at N = 1024 (none 96.4 %, split 98.6 %).
// defaultOverlap says what the other splits use.
var DefaultOverlap = CopyEarly

// Overlaps lists the strategies' names, in the order they were
// registered (none first).
func Overlaps() []string {
	out := make([]string, len(overlaps))
	for i, o := range overlaps {
		out[i] = o.name
	}
	return out
}

// LookupOverlap returns the strategy named; "" is nil, the split's
// default (defaultOverlap). A name that is none of them is an error
// listing them.
func LookupOverlap(name string) (*Overlap, error) {
	if name == "" {
		return nil, nil
	}
	o := overlapsByName[name]
	if o == nil {
		return nil, fmt.Errorf("gpu: overlap %q: want one of %v: %w", name, Overlaps(), lab.ErrUnknown)
	}
	return o, nil
}

// defaultOverlap returns the strategy of a split that names none:
// DefaultOverlap for slabs of one process and one step a pass; Copy for
// the deep halos of a temporally blocked step there (94.3 % against none's
// 93.4 % at N = 1024); across processes, where peer copies cannot go,
// Split for one step a pass (the best NCCL strategy: 91.0 % and 98.6 %)
// and None for deep halos; None for pencils.
func defaultOverlap(per, py int, oneProcess bool) *Overlap {
	switch {
	case py > 1:
		return None
	case !oneProcess && per == 1:
		return Split
	case !oneProcess:
		return None
	case per != 1:
		return Copy
	}
	return DefaultOverlap
}

// checkOverlap returns the strategy of a split (o, or the default when o
// is nil), or an error naming the limit it breaks.
func checkOverlap(o *Overlap, per, py int, oneProcess bool) (*Overlap, error) {
	if o == nil {
		o = defaultOverlap(per, py, oneProcess)
	}
	if !o.whole && per != 1 {
		return nil, fmt.Errorf("gpu: overlap %s needs a step of one time step a pass; this one advances %d (its halo is %d deep and its boundary launch would write the interior's planes): use -overlap %s",
			o, per, per, None)
	}
	if !o.pencils && py > 1 {
		if o.copies {
			return nil, fmt.Errorf("gpu: overlap %s copies whole planes, z-slabs only; pencils (%d ranks along y) use -overlap %s", o, py, None)
		}
		return nil, fmt.Errorf("gpu: overlap %s splits z-slabs only; pencils (%d ranks along y) use -overlap %s", o, py, None)
	}
	return o, nil
}
