package gpu

import (
	"runtime"
	"sync"
)

// worker runs closures one at a time on a goroutine locked to one OS
// thread, the thread on which a device's CUDA context is current.
type worker struct {
	jobs chan func()
	once sync.Once
}

func newWorker() *worker {
	w := &worker{jobs: make(chan func())}
	ready := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		// The thread is never unlocked: when the loop ends the goroutine
		// exits and takes the thread, with any CUDA state on it, along.
		close(ready)
		for f := range w.jobs {
			f()
		}
	}()
	<-ready
	return w
}

// do runs f on the worker's thread and returns its error.
func (w *worker) do(f func() error) error {
	errc := make(chan error, 1)
	w.jobs <- func() { errc <- f() }
	return <-errc
}

// stop ends the worker once every queued closure has run.
func (w *worker) stop() { w.once.Do(func() { close(w.jobs) }) }
