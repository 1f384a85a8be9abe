// Package testlimit gives a test the time limit for legitimate work: work
// that finishes, however slowly a loaded machine runs it. Such a limit is
// derived from the test's own deadline (go test -timeout), so load can
// slow the work but never fail it: the limit fires only when go test's own
// timeout was about to. A limit that stops hostile work (a loop without
// end, a sleep for ever) stays short and fixed in the test; this package
// is for everything else the same code path bounds.
package testlimit

import (
	"flag"
	"time"
)

// NoDeadline is the limit Legit gives a test that has no deadline
// (go test -timeout 0).
const NoDeadline = time.Hour

// MaxMargin is the most of its remaining time a test keeps back for
// reporting a limit that fired.
const MaxMargin = 30 * time.Second

// Deadliner is the part of *testing.T this package reads.
type Deadliner interface {
	Deadline() (time.Time, bool)
}

// Legit returns how long legitimate work in t may still take: the time
// left before t's deadline less a margin (a tenth of it, at most
// MaxMargin), so that the limit fires, and its error is reported, before
// go test stops the binary. It is NoDeadline without a deadline, and at
// least a second.
func Legit(t Deadliner) time.Duration {
	d, ok := t.Deadline()
	if !ok {
		return NoDeadline
	}
	return fromLeft(time.Until(d))
}

// fromLeft is Legit's rule for a test with left time to go.
func fromLeft(left time.Duration) time.Duration {
	margin := min(left/10, MaxMargin)
	return max(left-margin, time.Second)
}

// deadline is a Deadliner of a fixed time.
type deadline struct {
	at time.Time
	ok bool
}

func (d deadline) Deadline() (time.Time, bool) { return d.at, d.ok }

// FromFlags returns the deadline that go test's -timeout flag sets for the
// whole test binary, counted from now, for a TestMain, where no test (and
// no test's deadline) exists yet. It parses the command line's flags, as
// a TestMain that reads them must. Without the flag, or with -timeout 0,
// there is no deadline.
func FromFlags() Deadliner {
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.timeout")
	if f == nil {
		return deadline{}
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return deadline{}
	}
	d, ok := g.Get().(time.Duration)
	if !ok || d <= 0 {
		return deadline{}
	}
	return deadline{at: time.Now().Add(d), ok: true}
}
