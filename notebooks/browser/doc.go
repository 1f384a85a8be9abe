// Package browser tests the notebooks as a student meets them: in a
// browser. Its test, built with the tag browser (make browser), starts
// Debian's Jupyter Notebook server on a free localhost port over a copy of
// the module, opens notebooks 01, 04 and 05 in headless Chromium driven
// through the DevTools protocol (chromedp) and runs every cell from the
// notebook's Cell menu. Run All must never wait on a slider: it must end
// within twice the notebook's headless run time
// (notebooks/data/run_times.json) with no slider's controls left. Then
// it runs each slider's cell on its own, moves the slider and checks that
// its figure is redrawn, and that running another cell ends the slider's
// cell. It checks that every figure appears and no cell shows an error,
// and leaves no process behind.
//
//	go test -tags browser -count=1 ./notebooks/browser
//
// The test skips, saying which, where Chromium, the Jupyter server or the
// GoNB kernel is not installed; make install installs them.
package browser
