// Package browser tests the notebooks as a student meets them: in a
// browser. Its test, built with the tag browser (make browser), starts
// Debian's Jupyter Notebook server on a free localhost port over a copy of
// the module, opens notebooks 01 and 04 in headless Chromium driven
// through the DevTools protocol (chromedp), runs every cell from the
// notebook's Cell menu, moves each slider and checks that its figure is
// redrawn, and checks that every figure appears and no cell shows an
// error. It leaves no process behind.
//
//	go test -tags browser -count=1 ./notebooks/browser
//
// The test skips, saying which, where Chromium, the Jupyter server or the
// GoNB kernel is not installed; make install installs them.
package browser
