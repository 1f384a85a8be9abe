package sim

import (
	"fmt"
	"io"
	"time"
)

// ProgressAfter is how long a launch runs before Simulator.Progress hears
// of it: shorter launches stay silent.
const ProgressAfter = 3 * time.Second

// ProgressEvery is the interval between two reports of a long launch.
const ProgressEvery = time.Second

// progressAfter and progressEvery are the two, shortened by the tests.
var progressAfter, progressEvery = ProgressAfter, ProgressEvery

// Progress is how far a long launch has got.
type Progress struct {
	Kernel  string        // the kernel's name
	Done    int           // blocks finished
	Blocks  int           // blocks of the launch
	Elapsed time.Duration // since the launch began
	Final   bool          // the launch has ended; the last report
}

// Left estimates the time the launch still needs from its pace so far;
// zero before any block has finished.
func (p Progress) Left() time.Duration {
	if p.Done <= 0 || p.Done >= p.Blocks {
		return 0
	}
	return time.Duration(float64(p.Elapsed) * float64(p.Blocks-p.Done) / float64(p.Done))
}

// String reads "simulating tiled: 1200 of 4096 blocks (29 %), 6 s, about
// 14 s left".
func (p Progress) String() string {
	pct := 0.0
	if p.Blocks > 0 {
		pct = 100 * float64(p.Done) / float64(p.Blocks)
	}
	s := fmt.Sprintf("simulating %s: %d of %d blocks (%.0f %%), %s", p.Kernel, p.Done, p.Blocks, pct, p.Elapsed.Round(time.Second))
	switch {
	case p.Final:
		s += ", done"
	case p.Done > 0 && p.Left() < time.Second:
		s += ", under a second left"
	case p.Done > 0:
		s += fmt.Sprintf(", about %s left", p.Left().Round(time.Second))
	}
	return s
}

// PrintProgress returns a Progress callback that writes each report as one
// line to w (standard error, say). A nil w gives a nil callback: silence.
func PrintProgress(w io.Writer) func(Progress) {
	if w == nil {
		return nil
	}
	return func(p Progress) { fmt.Fprintln(w, p) }
}

// watch starts reporting the progress of l to s.Progress, once the launch
// has run ProgressAfter, and returns the function that stops it when the
// launch ends.
func (s *Simulator) watch(l *launch) (stop func()) {
	report := s.Progress
	if report == nil {
		return func() {}
	}
	start := time.Now()
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		wait := time.NewTimer(progressAfter)
		defer wait.Stop()
		select {
		case <-quit:
			return
		case <-wait.C:
		}
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			report(Progress{Kernel: l.k.label(), Done: int(l.done.Load()), Blocks: l.blocks, Elapsed: time.Since(start)})
			select {
			case <-quit:
				report(Progress{Kernel: l.k.label(), Done: int(l.done.Load()), Blocks: l.blocks, Elapsed: time.Since(start), Final: true})
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}
