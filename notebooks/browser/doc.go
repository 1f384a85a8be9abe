// Package browser tests the notebooks as a student meets them: in a
// browser. Its test, built with the tag browser (make browser), writes the
// students' copy of the repository (cmd/release), starts Debian's Jupyter
// Notebook server on a free localhost port over it, and opens its pages in
// headless Chromium driven through the DevTools protocol (chromedp).
//
// The start page and the glossary render as Markdown, every link of
// theirs opens and no text is garbled. Then every notebook NN_*.ipynb:
// before anything runs, the text the page shows above each question's
// check holds no answer that the check accepts (predict.AnswerLeaks); a
// doctored notebook that states two answers must be caught. A wrong
// prediction is then written into every prediction cell, as a student
// does, and every cell runs from the notebook's Cell menu; each check must
// then show the answer and its working. Run All must not wait on a
// slider: it must end within twice the notebook's headless run time
// (notebooks/data/run_times.json), scaled by how much slower its
// neighbours ran, with no slider's controls left; the one wait allowed is
// the bounded one of a slider whose controls did not come up
// (widgets.SliderNoControlsNote), which is taken off the time. The
// notebook is saved from the File menu, and the saved notebooks are
// checked with cmd/nbcheck as scripts/run-notebooks.sh checks the ones it
// executes (01 to 08 against their committed outputs, read without the
// predictions and the sliders' controls), so that make test runs each
// notebook once. The sliders of notebooks 01, 04 and 05 then run on their
// own: each is moved and its figure must be redrawn, and running another
// cell ends the slider's cell. Every figure must appear, no cell may show
// an error, and no process is left behind.
//
//	go test -tags browser -count=1 -v ./notebooks/browser
//
// The test skips, saying which, where Chromium, the Jupyter server or the
// GoNB kernel is not installed; make install installs them.
package browser
