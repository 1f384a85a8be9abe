//go:build browser

package browser

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/internal/nbformat"
	"stencillab.dev/internal/testlimit"
	"stencillab.dev/notebooks/nbrun/predict"
	"stencillab.dev/notebooks/nbrun/widgets"
)

// The programs the test drives, from Debian's packages.
const (
	jupyterPath  = "/usr/bin/jupyter"
	chromiumPath = "/usr/bin/chromium"
)

// runMarkEnv marks every process the test starts, so that it can find
// and stop each of them, and only them, at the end.
const runMarkEnv = "STENCILLAB_BROWSER_RUN"

// runTimesFile holds the notebooks' headless run times, measured by
// scripts/run-notebooks.sh.
const runTimesFile = "notebooks/data/run_times.json"

// headlessSeconds reads a notebook's headless run time from runTimesFile.
func headlessSeconds(t *testing.T, root, file string) float64 {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(runTimesFile)))
	require.NoError(t, err)
	var rt struct {
		Notebooks []struct {
			Notebook string
			Seconds  float64
		}
	}
	require.NoError(t, json.Unmarshal(raw, &rt), runTimesFile)
	for _, n := range rt.Notebooks {
		if n.Notebook == file {
			require.Greater(t, n.Seconds, 0.0, "%s: %s", runTimesFile, file)
			return n.Seconds
		}
	}
	t.Fatalf("%s records no run time of %s", runTimesFile, file)
	return 0
}

// widgetStart is the test's bound on a slider's wait for its controls
// (widgets.WidgetStartEnv).
const widgetStart = 30 * time.Second

// runTook is a notebook's Run All in the browser and its recorded headless
// run.
type runTook struct {
	file              string
	browser, headless time.Duration
}

// nearby is how many notebooks run just before and just after one set
// the scale of its limit in slowRuns.
const nearby = 2

// slowRuns returns a line for each notebook, of those run one after
// another in the order given, whose Run All took more than twice its
// recorded headless run, scaled by how much slower than at the recording
// this machine ran the notebooks around it: the median, over the nearby
// notebooks run just before and after it, of their browser time over their
// headless one, and never below one. Load (make test's Go steps run beside
// the browser) slows the notebooks run at the same time alike, which the
// scale takes out, so load cannot fail the check; a notebook that stalls (a
// cell waiting on a slider for minutes) stands out from its neighbours,
// which it does not scale, unless most of them stall too.
func slowRuns(runs []runTook) []string {
	var out []string
	for i, r := range runs {
		var ratios []float64
		for j := max(0, i-nearby); j <= min(len(runs)-1, i+nearby); j++ {
			if o := runs[j]; j != i && o.headless > 0 {
				ratios = append(ratios, float64(o.browser)/float64(o.headless))
			}
		}
		scale := 1.0
		if len(ratios) > 0 {
			slices.Sort(ratios)
			m := ratios[len(ratios)/2]
			if len(ratios)%2 == 0 {
				m = (ratios[len(ratios)/2-1] + m) / 2
			}
			scale = max(1, m)
		}
		if limit := time.Duration(2 * scale * float64(r.headless)); r.browser > limit {
			out = append(out, fmt.Sprintf("%s: Run All took %v, over twice its headless %v (%s) scaled by %.2f, its neighbours' slowing: %v",
				r.file, r.browser.Round(100*time.Millisecond), r.headless, runTimesFile, scale, limit.Round(100*time.Millisecond)))
		}
	}
	return out
}

// A notebook that stalls stands out however loaded the machine, and load
// alone, which slows the notebooks run at the same time alike, fails none,
// even when it comes and goes during the run.
func TestSlowRunsScalesByTheNeighbours(t *testing.T) {
	s := time.Second
	runs := func(browser ...time.Duration) []runTook {
		var rs []runTook
		for i, b := range browser {
			rs = append(rs, runTook{fmt.Sprintf("n%d", i), b, 20 * s})
		}
		return rs
	}
	assert.Empty(t, slowRuns(runs(10*s, 18*s, 25*s, 20*s, 30*s, 22*s)), "a quiet machine")
	stalled := slowRuns(runs(10*s, 18*s, 200*s, 20*s, 30*s, 22*s))
	require.Len(t, stalled, 1, "a slider waited three minutes")
	assert.Contains(t, stalled[0], "n2: Run All took 3m20s")
	// Four times slower while the Go steps ran, then quiet: no failure.
	assert.Empty(t, slowRuns(runs(80*s, 90*s, 100*s, 70*s, 30*s, 20*s, 18*s, 25*s)))
	// A stall while loaded, and two stalls side by side, stand out.
	assert.Len(t, slowRuns(runs(80*s, 90*s, 800*s, 70*s, 30*s, 20*s, 18*s, 25*s)), 1)
	assert.Len(t, slowRuns(runs(20*s, 18*s, 200*s, 200*s, 30*s, 22*s, 20*s)), 2)
}

// controlNotebook is the notebook whose faults the checks must catch.
const controlNotebook = "zz_control.ipynb"

// writeControl writes the control notebook: a cell that mentions a figure
// but shows none, one that panics, and one after it (GoNB runs it: it does
// not abort the cells queued behind a failure).
func writeControl(t *testing.T, path string) {
	t.Helper()
	writeNotebook(t, path, goNotebook(
		codeCell("no-figure", "%%\n// calls no Show( at all\nfmt.Println(\"no figure\")"),
		codeCell("fails", "%%\npanic(\"a cell that fails\")"),
		codeCell("after", "%%\nfmt.Println(\"not reached\")"),
	))
}

// codeCell is a code cell of a notebook the test writes.
func codeCell(id, src string) map[string]any {
	return map[string]any{"cell_type": "code", "id": id, "metadata": map[string]any{}, "outputs": []any{},
		"execution_count": nil, "source": src}
}

// goNotebook is a notebook for the GoNB kernel whose first cell, as in the
// course's notebooks, builds against the lab of the copy it runs in, and
// whose other cells are cells.
func goNotebook(cells ...map[string]any) map[string]any {
	all := []any{codeCell("setup", "!*go mod edit -replace=stencillab.dev=${GONB_DIR}/.. -require=stencillab.dev@v0.0.0-00010101000000-000000000000")}
	for _, c := range cells {
		all = append(all, c)
	}
	return map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"kernelspec": map[string]any{"name": "gonb", "display_name": "Go (gonb)", "language": "go"}},
		"cells":    all,
	}
}

// writeNotebook writes the notebook nb as the file path.
func writeNotebook(t *testing.T, path string, nb map[string]any) {
	t.Helper()
	raw, err := json.Marshal(nb)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw, 0o644))
}

// requireEnv, set by make's browser stage (which installs what the test
// needs first), turns a missing tool into a failure: make test never
// passes by skipping the browser.
const requireEnv = "STENCILLAB_REQUIRE_BROWSER"

// need skips the test, saying what is missing, unless Chromium, the
// Jupyter Notebook server and the GoNB kernel are installed; under
// requireEnv it fails instead.
func need(t *testing.T) {
	t.Helper()
	skipf := t.Skipf
	if os.Getenv(requireEnv) != "" {
		skipf = t.Fatalf
	}
	for _, p := range []struct{ path, what string }{
		{chromiumPath, "Debian's chromium (scripts/install-browser.sh, run by make install)"},
		{jupyterPath, "Debian's Jupyter (scripts/install-jupyter.sh, run by make install)"},
	} {
		if _, err := os.Stat(p.path); err != nil {
			skipf("the browser test needs %s: %s is missing", p.what, p.path)
		}
	}
	if err := exec.Command(jupyterPath, "notebook", "--version").Run(); err != nil {
		skipf("the browser test needs the Jupyter Notebook server (jupyter-notebook; scripts/install-browser.sh): %v", err)
	}
	out, err := exec.Command(jupyterPath, "kernelspec", "list").Output()
	if err != nil || !bytes.Contains(out, []byte("gonb")) {
		skipf("the browser test needs the GoNB kernel (scripts/install-gonb.sh): not in jupyter kernelspec list (%v)", err)
	}
}

// moduleRoot returns the folder of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	require.NoError(t, err)
	gomod := strings.TrimSpace(string(out))
	require.NotEmpty(t, gomod, "not inside the module")
	return filepath.Dir(gomod)
}

// writeRelease writes the students' copy of the repository at root into
// dst, as cmd/release writes it (outputs between a question and its check
// cleared, solutions replaced by their stubs), without making it a git
// repository. The server's autosave writes there, never over the
// repository's notebooks.
func writeRelease(t *testing.T, root, dst string) {
	t.Helper()
	cmd := exec.Command("go", "run", "./cmd/release", "-C", root, "-out", dst, "-git=false")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go run ./cmd/release -out %s:\n%s", dst, out)
}

// freePort returns a localhost port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// server is a Jupyter Notebook server the test started.
type server struct {
	url, token string
	cmd        *exec.Cmd
	log        *bytes.Buffer
}

// startServer starts Jupyter on a free port over dir, with the browser
// variable set so that the notebooks' sliders come up, and waits until it
// answers.
func startServer(t *testing.T, ctx context.Context, dir, mark string) *server {
	t.Helper()
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	s := &server{token: hex.EncodeToString(tok), log: &bytes.Buffer{}}
	port := freePort(t)
	s.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	args := []string{"notebook", "--no-browser", "--ip=127.0.0.1", "--port=" + strconv.Itoa(port), "--port-retries=0",
		"--NotebookApp.token=" + s.token, "--notebook-dir=" + dir}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-root")
	}
	s.cmd = exec.Command(jupyterPath, args...)
	gobin, _ := exec.Command("go", "env", "GOPATH").Output()
	s.cmd.Env = append(os.Environ(),
		"PATH="+filepath.Join(strings.TrimSpace(string(gobin)), "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"STENCILLAB_BROWSER=1",
		"STENCILLAB_SLIDER_IDLE=60",
		// The controls of a slider come up through the kernel and the
		// browser, both slow on a loaded machine. When they do not come
		// up within this bound (in Run All, or run on its own), the cell
		// falls back to its static figure: runAll allows for that bounded
		// wait, and liveSliders runs the cell again.
		"STENCILLAB_WIDGET_START="+strconv.Itoa(int(widgetStart/time.Second)),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(dir, ".runtime"),
		runMarkEnv+"="+mark)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, s.cmd.Start())
	for {
		resp, err := http.Get(s.url + "/api/status?token=" + s.token)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("the Jupyter server did not answer at %s before the test's deadline:\n%s", s.url, s.log.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// stop shuts the server's kernels down through its API, stops the server
// and then every process still marked with this run's mark.
func (s *server) stop(t *testing.T, mark string) {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	if resp, err := http.Get(s.url + "/api/kernels?token=" + s.token); err == nil {
		var ks []struct{ ID string }
		_ = json.NewDecoder(resp.Body).Decode(&ks)
		resp.Body.Close()
		for _, k := range ks {
			req, _ := http.NewRequest(http.MethodDelete, s.url+"/api/kernels/"+k.ID+"?token="+s.token, nil)
			if r, err := http.DefaultClient.Do(req); err == nil {
				r.Body.Close()
			}
		}
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	left := killMarked(mark)
	if len(left) > 0 {
		t.Logf("stopped %d processes the server left behind: %v", len(left), left)
	}
}

// killMarked kills every process whose environment holds this run's mark
// and returns their ids.
func killMarked(mark string) []int {
	want := []byte(runMarkEnv + "=" + mark + "\x00")
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// minImages reads the number of images nbcheck requires of a notebook.
func minImages(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var nb struct {
		Metadata struct {
			Stencillab struct {
				MinImages int `json:"min_images"`
			} `json:"stencillab"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(raw, &nb), path)
	return nb.Metadata.Stencillab.MinImages
}

// The notebook page's state, read with JavaScript.
const (
	jsReady = `!!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected() &&
		document.querySelector('#kernel_indicator_icon.kernel_idle_icon'))`
	// jsState reports the cells still to run and the sliders showing.
	jsState = `(() => {
		const cells = Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code');
		const running = cells.filter(c => c.input_prompt_number === '*').length;
		const pending = cells.filter(c => c.input_prompt_number === undefined || c.input_prompt_number === null).length;
		const sliders = document.querySelectorAll('.stencillab-slider input[type=range]').length;
		const idle = !!document.querySelector('#kernel_indicator_icon.kernel_idle_icon');
		return JSON.stringify({running, pending, sliders, idle, cells: cells.length});
	})()`
	// jsReport describes each code cell's outputs.
	jsReport = `(() => JSON.stringify(Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code').map(c => ({
		id: c.metadata.id || c.cell_id || '',
		source: c.get_text().slice(0, 60),
		prompt: String(c.input_prompt_number),
		images: c.element[0].querySelectorAll('.output_area img').length,
		errors: c.element[0].querySelectorAll('.output_error').length,
		stderr: Array.from(c.element[0].querySelectorAll('.output_stderr')).map(e => e.innerText).join('\n').slice(0, 400),
	}))))()`
)

// pageState is what jsState returns.
type pageState struct {
	Running, Pending, Sliders, Cells int
	Idle                             bool
}

// cellReport is one cell of what jsReport returns.
type cellReport struct {
	ID, Source, Prompt string
	Images, Errors     int
	Stderr             string
}

// problems lists, one line each, the cells of a run that show an error,
// write an error or a panic to standard error, did not finish or did not
// run, or draw a figure (their source calls Show or SliderFigure) that
// does not appear.
func problems(cells []cellReport) []string {
	var ps []string
	for _, c := range cells {
		what := fmt.Sprintf("cell %s (%q)", c.ID, c.Source)
		switch c.Prompt {
		case "*":
			ps = append(ps, what+" did not finish")
			continue
		case "null", "undefined", "":
			ps = append(ps, what+" did not run")
			continue
		}
		if c.Errors > 0 {
			ps = append(ps, fmt.Sprintf("%s shows an error: %s", what, c.Stderr))
		}
		low := strings.ToLower(c.Stderr)
		if strings.Contains(low, "panic") || strings.Contains(low, "error") || strings.Contains(low, "goroutine ") {
			ps = append(ps, fmt.Sprintf("%s writes to standard error: %s", what, c.Stderr))
		}
		if (strings.Contains(c.Source, "Show(") || strings.Contains(c.Source, "SliderFigure(")) && c.Images == 0 {
			ps = append(ps, what+" draws a figure that does not appear")
		}
	}
	return ps
}

// moveSlider moves the slider showing to another position, as a user's
// drag does (input and change events), and waits until the picture next
// to it is redrawn.
func moveSlider(ctx context.Context) error {
	const jsImage = `(() => { const r = document.querySelector('.stencillab-slider'); if (!r) return '';
		const cell = r.closest('.cell'); const imgs = cell ? cell.querySelectorAll('.output_area img') : [];
		return imgs.length ? imgs[imgs.length-1].src.slice(-200) + ':' + imgs[imgs.length-1].src.length : ''; })()`
	before, err := chromedp.Run(ctx, chromedp.Evaluate[string](jsImage))
	if err != nil {
		return err
	}
	if before == "" {
		return errors.New("a slider shows with no figure in its cell")
	}
	moved, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const s = document.querySelector('.stencillab-slider input[type=range]');
		const v = Number(s.value) === Number(s.max) ? Number(s.min) : Number(s.max);
		s.value = String(v); s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change')); return s.value; })()`))
	if err != nil {
		return err
	}
	for {
		now, err := chromedp.Run(ctx, chromedp.Evaluate[string](jsImage))
		if err != nil {
			return err
		}
		if now != "" && now != before {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("moving a slider to %s did not redraw its figure before the test's deadline", moved)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// jsSliderCells lists the indexes, among all the notebook's cells, of the
// code cells that draw a slider.
const jsSliderCells = `(() => JSON.stringify(Jupyter.notebook.get_cells().map((c, i) => [c, i])
	.filter(([c]) => c.cell_type === 'code' && c.get_text().includes('SliderFigure(')).map(([c, i]) => i)))()`

// pollGone waits until no slider's controls show, as long as ctx lasts
// (the test's deadline): what ended the slider is read from its note, not
// from how soon it went.
func pollGone(ctx context.Context) error {
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('.stencillab-slider').length === 0`,
		chromedp.WithPollingInterval(300*time.Millisecond)))
	return err
}

// liveSliders runs each slider cell on its own, as a student does after
// Run All, waits for its controls, moves it and checks that the figure is
// redrawn. The first slider is left by running the next code cell that
// is not a slider's, which must end the slider's cell at once, saying so,
// and give the kernel back; the others by Done. It returns the sliders
// moved.
func liveSliders(t *testing.T, ctx context.Context, file string) int {
	t.Helper()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](jsSliderCells))
	require.NoError(t, err)
	var idx []int
	require.NoError(t, json.Unmarshal([]byte(raw), &idx))
	moved := 0
	for k, i := range idx {
		// Run on its own, the cell shows its controls, or, when the page's
		// channel to the kernel did not come up within the bound, its
		// static figure and a note saying so: then it is run again.
		for try := 1; ; try++ {
			_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { Jupyter.notebook.execute_cells([%d]); return true; })()`, i)))
			require.NoError(t, err)
			got, err := chromedp.Run(ctx, chromedp.Poll[string](fmt.Sprintf(`(() => { if (document.querySelectorAll('.stencillab-slider input[type=range]').length === 1) return 'controls';
				const c = Jupyter.notebook.get_cell(%d); return c.element[0].innerText.includes(`+"`"+widgets.SliderNoControlsNote+"`"+`) && !c.element.hasClass('running') ? 'fell back' : null; })()`, i),
				chromedp.WithPollingInterval(300*time.Millisecond)))
			if err != nil || got != "fell back" || try == 3 {
				break
			}
			t.Logf("%s: cell %d: the slider's controls did not come up within %v (try %d): running it again", file, i, widgetStart, try)
		}
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('.stencillab-slider input[type=range]').length === 1`,
			chromedp.WithPollingInterval(300*time.Millisecond)))
		if err != nil {
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`Jupyter.notebook.get_cell(%d).element[0].innerText`, i)))
			require.NoError(t, err, "%s: cell %d run on its own: the slider's controls did not come up; the cell shows:\n%s", file, i, text)
		}
		// The slider says it is live once its Go side listens for moves.
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`[...document.querySelectorAll('.stencillab-slider')].some(e => e.innerText.includes(`+
			"`"+widgets.SliderLive+"`"+`))`, chromedp.WithPollingInterval(300*time.Millisecond)))
		require.NoError(t, err, "%s: cell %d: the slider never said it was live", file, i)
		require.NoError(t, moveSlider(ctx), "%s: cell %d", file, i)
		moved++
		if k > 0 {
			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.stencillab-slider button`))))
			require.NoError(t, pollGone(ctx), "%s: cell %d: the slider's controls stayed after Done", file, i)
			note, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`Jupyter.notebook.get_cell(%d).element[0].innerText`, i)))
			require.NoError(t, err)
			assert.NotContains(t, note, widgets.SliderIdleNote, "%s: cell %d: Done ended the slider, not its idle bound", file, i)
			continue
		}
		// Running another cell, the next code cell that is not a slider's,
		// ends the slider's cell, which says so.
		_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const cs = Jupyter.notebook.get_cells();
			const j = cs.findIndex((c, n) => n > %d && c.cell_type === 'code' && !c.get_text().includes('SliderFigure('));
			Jupyter.notebook.execute_cells([j < 0 ? %d : j]); return true; })()`, i, i)))
		require.NoError(t, err)
		require.NoError(t, pollGone(ctx), "%s: cell %d: the slider held up the next cell", file, i)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const s = JSON.parse(`+jsState+`); return s.idle && s.running === 0; })()`,
			chromedp.WithPollingInterval(300*time.Millisecond)))
		require.NoError(t, err, "%s: cell %d: the kernel did not come back after the slider ended", file, i)
		note, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`Jupyter.notebook.get_cell(%d).element[0].innerText`, i)))
		require.NoError(t, err)
		assert.Contains(t, note, "another cell was run, so the slider stopped", "%s: cell %d", file, i)
	}
	return moved
}

// openNotebook opens a notebook in a tab of its own and waits for its
// kernel; the tab closes, without asking, when the returned function is
// called. Each notebook gets its own tab: leaving a notebook whose cells
// ran asks, in a dialog, whether to leave, which would stop the test.
func openNotebook(t *testing.T, ctx context.Context, s *server, file string) (context.Context, func()) {
	t.Helper()
	tab, closeTab := chromedp.NewContext(ctx)
	require.NoError(t, chromedp.Do(tab), "open a tab")
	tab, cancel := context.WithCancel(tab)
	done := func() {
		// Stop the notebook's kernel and let the tab close without asking.
		_, _ = chromedp.Run(tab, chromedp.Evaluate[bool](`(() => { Jupyter.notebook.set_dirty(false); window.onbeforeunload = null;
			Jupyter.notebook.session.delete(); return true; })()`))
		cancel()
		closeTab()
	}
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(s.url+"/notebooks/"+file+"?token="+s.token)), "open %s", file)
	_, err := chromedp.Run(tab, chromedp.Poll[bool](jsReady, chromedp.WithPollingInterval(300*time.Millisecond)))
	require.NoError(t, err, "%s: the kernel did not start:\n%s", file, s.log.String())
	return tab, done
}

// waitIdle waits until the kernel is idle with no cell running, and, when
// all is set, every code cell has run; a failing cell stops Run All, so
// cells left unrun for a few seconds of an idle kernel are not waited for.
// It returns how long it took until the kernel was first found idle.
func waitIdle(t *testing.T, ctx context.Context, file string, all bool) time.Duration {
	t.Helper()
	quiet := 0
	start := time.Now()
	var took time.Duration
	for {
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](jsState))
		require.NoError(t, err, "%s after %v", file, time.Since(start))
		var st pageState
		require.NoError(t, json.Unmarshal([]byte(raw), &st))
		if st.Idle && st.Running == 0 {
			if quiet == 0 {
				took = time.Since(start)
			}
			if quiet++; (st.Pending == 0 || !all) && quiet >= 2 || quiet >= 12 {
				return took
			}
		} else {
			quiet = 0
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// runAll runs every cell of the open notebook from the Cell menu,
// touching no slider, and returns the cells' report and how long Run All
// took.
func runAll(t *testing.T, ctx context.Context, file string) ([]cellReport, time.Duration) {
	t.Helper()
	// Cell > Run All, as a student does it.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#celllink`)),
		chromedp.Click(chromedp.CSS(`#run_all_cells a`)),
	), "%s: Cell > Run All", file)
	took := waitIdle(t, ctx, file, true)
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](jsReport))
	require.NoError(t, err)
	var cells []cellReport
	require.NoError(t, json.Unmarshal([]byte(raw), &cells))
	raw, err = chromedp.Run(ctx, chromedp.Evaluate[string](jsState))
	require.NoError(t, err)
	var st pageState
	require.NoError(t, json.Unmarshal([]byte(raw), &st))
	assert.Zero(t, st.Sliders, "%s: a slider's controls stayed after Run All", file)
	t.Logf("%s: Run All of %d code cells took %v", file, len(cells), took.Round(100*time.Millisecond))
	return cells, took
}

// fallbacks returns how many of the page's slider cells fell back to their
// static figure because their controls did not come up within the bound
// (widgets.SliderNoControlsNote): each held Run All up to widgetStart, a
// wait the design bounds, which the run-time check allows for.
func fallbacks(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code' &&
		c.get_text().includes('SliderFigure(') && c.element[0].innerText.includes(`+"`"+widgets.SliderNoControlsNote+"`"+`)).length`))
	require.NoError(t, err)
	return n
}

// saveNotebook saves the open notebook from the File menu (Save and
// Checkpoint), as a student does, waits until the server has written it
// and copies the file the server wrote, from the folder dir it serves,
// into to.
func saveNotebook(t *testing.T, ctx context.Context, dir, file, to string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { window.stencillabSaved = false;
		Jupyter.notebook.events.one('notebook_saved.Notebook', () => { window.stencillabSaved = true; }); return true; })()`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#filelink`)),
		chromedp.Click(chromedp.CSS(`#save_checkpoint a`)),
	), "%s: File > Save and Checkpoint", file)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`window.stencillabSaved === true`,
		chromedp.WithPollingInterval(300*time.Millisecond)))
	require.NoError(t, err, "%s: the notebook was not saved before the test's deadline", file)
	b, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(to, file), b, 0o644))
}

// runNotebook opens one notebook and runs all its cells from the Cell
// menu, touching no slider; it returns the cells' report and how long Run
// All took.
func runNotebook(t *testing.T, ctx context.Context, s *server, file string) ([]cellReport, time.Duration) {
	t.Helper()
	tab, done := openNotebook(t, ctx, s, file)
	defer done()
	return runAll(t, tab, file)
}

// startLab writes the students' copy of the repository (cmd/release) into
// a temporary folder, starts the Jupyter server on its notebooks and a
// headless Chromium, all stopped when the test ends (or ctx does), and
// returns the browser's context, the server and the copy's folder.
func startLab(t *testing.T, ctx context.Context) (context.Context, *server, string) {
	t.Helper()
	mark := make([]byte, 8)
	_, _ = rand.Read(mark)
	markS := hex.EncodeToString(mark)
	dir := filepath.Join(t.TempDir(), "student")
	writeRelease(t, moduleRoot(t), dir)
	s := startServer(t, ctx, filepath.Join(dir, "notebooks"), markS)
	t.Cleanup(func() { s.stop(t, markS) })
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-sandbox", os.Geteuid() == 0), // Chromium refuses its sandbox as root
		chromedp.Env(runMarkEnv+"="+markS),
		chromedp.WindowSize(1400, 1000),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	// Cleanups run last first: the browser closes before the server stops.
	t.Cleanup(acancel)
	t.Cleanup(bcancel)
	// The first call starts the browser, which lives as long as bctx.
	require.NoError(t, chromedp.Do(bctx), "start %s", chromiumPath)
	return bctx, s, dir
}

// courseNotebooks returns the notebooks NN_*.ipynb of the folder dir that
// have code to run (the start page has none), in the course's order.
func courseNotebooks(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "[0-9][0-9]*_*.ipynb"))
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var nb struct {
			Cells []struct {
				CellType string          `json:"cell_type"`
				Source   json.RawMessage `json:"source"`
			} `json:"cells"`
		}
		require.NoError(t, json.Unmarshal(raw, &nb), f)
		for _, c := range nb.Cells {
			src, err := nbformat.CellSource(c.Source)
			require.NoError(t, err, f)
			if c.CellType == "code" && strings.TrimSpace(src) != "" {
				out = append(out, filepath.Base(f))
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// runLine is the line scripts/run-notebooks.sh prints for a notebook's run.
func runLine(name, result string, took time.Duration) string {
	tenths := took.Milliseconds() / 100
	return fmt.Sprintf("run-notebooks: %-32s %s in %d.%d s", name, result, tenths/10, tenths%10)
}

// courseNotebook reports whether a notebook is one of those committed with
// outputs, which nbcheck compares with their committed copies (as
// scripts/run-notebooks.sh does).
func courseNotebook(file string) bool {
	ok, _ := filepath.Match("0[1-8]_*.ipynb", file)
	return ok
}

// nbcheck checks the saved notebooks of the folder saved as
// scripts/run-notebooks.sh checks the executed ones: cmd/nbcheck on every
// one, and notebooks 01 to 08 compared with the committed notebooks of the
// repository at root (nbcheck -committed). The committed outputs come from
// a headless run of the notebooks as committed, in which a slider is its
// static figure alone, so the comparison reads a copy (comparableCopy)
// without what the student's run alone has: the predictions the test
// wrote (written: the prediction cells as they were, by notebook and
// cell), a slider's controls and notes (text/html outputs of the cells
// that call SliderFigure), which only a browser shows, and, where the
// repository is itself a students' copy, the outputs its committed
// notebooks lack between a question and its check (clearedCells).
// nbcheck's own checks, the images a notebook must show included, read
// the notebooks as saved. It returns nbcheck's report and the notebooks
// it failed.
func nbcheck(t *testing.T, root, saved string, files []string, written map[string]map[int]string) (string, map[string]bool) {
	t.Helper()
	bin := buildNbcheck(t, root)
	compare := t.TempDir()
	var compared []string
	for _, f := range files {
		if courseNotebook(f) {
			committed := filepath.Join(root, "notebooks", f)
			comparableCopy(t, filepath.Join(saved, f), filepath.Join(compare, f), written[f], clearedCells(t, committed))
			compared = append(compared, f)
		}
	}
	type nbcheckRun struct {
		dir  string
		args []string
	}
	var runs []nbcheckRun
	if len(files) > 0 {
		runs = append(runs, nbcheckRun{saved, files})
	}
	if len(compared) > 0 {
		// The images a notebook must show are counted above, on the
		// notebooks as saved: -min 0 here.
		runs = append(runs, nbcheckRun{compare, append([]string{"-min", "0", "-committed", filepath.Join(root, "notebooks")}, compared...)})
	}
	var report strings.Builder
	for _, run := range runs {
		cmd := exec.Command(bin, run.args...)
		cmd.Dir = run.dir
		out, _ := cmd.CombinedOutput() // its status is read from its lines
		report.Write(out)
	}
	failed := map[string]bool{}
	for _, line := range strings.Split(report.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "FAIL "); ok {
			name, _, _ := strings.Cut(rest, ":")
			failed[name] = true
		}
	}
	return report.String(), failed
}

// buildNbcheck builds cmd/nbcheck of the repository at root into a
// temporary folder and returns the binary's path.
func buildNbcheck(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "nbcheck")
	build := exec.Command("go", "build", "-o", bin, "./cmd/nbcheck")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/nbcheck:\n%s", out)
	return bin
}

// clearedCells returns the code cells of the committed notebook at path
// that the students' copy cleared (cmd/release): between a question and
// its check, the check included, with no outputs and never run. In the
// instructor's copy, whose committed notebooks make notebooks ran whole,
// there are none.
func clearedCells(t *testing.T, path string) map[int]bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var nb map[string]any
	require.NoError(t, json.Unmarshal(raw, &nb), path)
	cells, _ := nb["cells"].([]any)
	cleared := map[int]bool{}
	open := false // a question whose check has not come yet
	for i, c := range cells {
		cm, _ := c.(map[string]any)
		if cm["cell_type"] == "markdown" && hasTag(cm, predict.QuestionTag) {
			open = true
		}
		if cm["cell_type"] != "code" || !open {
			continue
		}
		if outs, _ := cm["outputs"].([]any); len(outs) == 0 && cm["execution_count"] == nil {
			cleared[i] = true
		}
		if predict.CheckCall.MatchString(sourceOf(cm)) {
			open = false
		}
	}
	return cleared
}

// comparableCopy writes the notebook at from to to with the prediction
// cells' sources as they were (original, by cell), with no outputs in the
// cells the students' copy cleared (cleared), and without the outputs
// that only a browser shows: in the code cells that call SliderFigure,
// the display outputs whose one kind is text/html (the slider's controls,
// its busy sign and its notes). The figures and printed text stay.
func comparableCopy(t *testing.T, from, to string, original map[int]string, cleared map[int]bool) {
	t.Helper()
	raw, err := os.ReadFile(from)
	require.NoError(t, err)
	var nb map[string]any
	require.NoError(t, json.Unmarshal(raw, &nb), from)
	cells, _ := nb["cells"].([]any)
	for i, c := range cells {
		cm, _ := c.(map[string]any)
		if src, ok := original[i]; ok {
			cm["source"] = src
		}
		if cleared[i] {
			cm["outputs"] = []any{}
		}
		if cm["cell_type"] != "code" || !strings.Contains(sourceOf(cm), "SliderFigure(") {
			continue
		}
		outs, _ := cm["outputs"].([]any)
		kept := []any{}
		for _, o := range outs {
			om, _ := o.(map[string]any)
			data, _ := om["data"].(map[string]any)
			if _, html := data["text/html"]; om["output_type"] == "display_data" && html && len(data) == 1 {
				continue
			}
			kept = append(kept, o)
		}
		cm["outputs"] = kept
	}
	b, err := json.Marshal(nb)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o644))
}

// sliders are the notebooks whose sliders the test moves, with how many
// each has: each is run on its own after Run All, moved, and must redraw
// its figure.
var sliders = map[string]int{
	"01_sine_and_derivatives.ipynb": 0,
	"04_shared_memory_tiling.ipynb": 2,
	"05_thread_coarsening.ipynb":    1,
}

// TestNotebooksInABrowser opens the start page and the glossary of the
// students' copy in headless Chromium (coursePageChecks), then runs every
// notebook of it, as a student does: it reads the page before running
// anything (no answer before its check), writes a prediction into each
// prediction cell, runs all its cells from the Cell menu within twice the
// notebook's headless run time (each check then shows the answer with its
// working), saves it from the File menu and runs the sliders of notebooks
// 01, 04 and 05 on their own. The saved notebooks are
// checked as scripts/run-notebooks.sh checks the ones nbconvert executes
// (cmd/nbcheck), which make test therefore does not run.
func TestNotebooksInABrowser(t *testing.T) {
	need(t)
	root := moduleRoot(t)
	files := courseNotebooks(t, filepath.Join(root, "notebooks"))
	// Every wait of the test lasts as long as its deadline (go test
	// -timeout) allows: load slows it, never fails it.
	ctx, cancel := context.WithTimeout(context.Background(), testlimit.Legit(t))
	defer cancel()
	bctx, s, dir := startLab(t, ctx)
	nbdir := filepath.Join(dir, "notebooks")
	require.Equal(t, files, courseNotebooks(t, nbdir), "the students' copy holds the repository's notebooks")
	coursePageChecks(t, bctx, s)

	// A control: a notebook whose cell panics, which the checks must catch.
	writeControl(t, filepath.Join(nbdir, controlNotebook))
	t.Run("a failing cell is caught", func(t *testing.T) {
		cells, _ := runNotebook(t, bctx, s, controlNotebook)
		ps := problems(cells)
		require.Len(t, cells, 4)
		for _, c := range cells {
			t.Logf("control cell %q: prompt %s, %d errors, %d images", c.Source, c.Prompt, c.Errors, c.Images)
		}
		all := strings.Join(ps, "\n")
		assert.Regexp(t, `a cell that fails.*shows an error: panic: a cell that fails`, all)
		assert.Regexp(t, `a cell that fails.*writes to standard error: panic`, all)
		assert.Regexp(t, `calls no Show.*draws a figure that does not appear`, all)
		assert.Len(t, ps, 3, "only the faults of the two bad cells: %v", ps)
	})
	attackAnswerCheck(t, bctx, s, nbdir)
	attackAnswerShown(t, bctx, s, nbdir)

	// The notebooks as run and saved, checked as run-notebooks.sh checks
	// its executed ones; kept in notebooks/_out as it keeps them.
	saved := t.TempDir()
	written := map[string]map[int]string{} // the prediction cells as they were, by notebook
	var took []runTook                     // Run All's time and the recorded headless one, in run order
	for _, file := range files {
		t.Run(strings.TrimSuffix(file, ".ipynb"), func(t *testing.T) {
			headless := time.Duration(headlessSeconds(t, root, file) * float64(time.Second))
			tab, done := openNotebook(t, bctx, s, file)
			defer done()
			for _, f := range answersBeforeChecks(t, tab, file) {
				t.Errorf("%s", f)
			}
			// Predictions written, as a student does, before Run All.
			p := writePredictions(t, tab, file)
			written[file] = p.original
			cells, d := runAll(t, tab, file)
			if k := fallbacks(t, tab); k > 0 {
				// The page's channel to the kernel did not come up in
				// time for k sliders: each waited its bound, then let Run
				// All go on with its static figure.
				t.Logf("%s: %d slider(s) fell back to their static figure after %v; Run All is timed less that bounded wait", file, k, widgetStart)
				d -= time.Duration(k) * widgetStart
			}
			ps := problems(cells)
			// The line run-notebooks.sh prints for a run: FAILED when a
			// cell failed or did not run (make test's summary names it).
			result := "ran"
			if len(ps) > 0 {
				result = "FAILED"
			}
			fmt.Println(runLine(strings.TrimSuffix(file, ".ipynb"), result, d))
			assert.Empty(t, ps, "cells that failed, did not run or lost their figure")
			images := 0
			for _, c := range cells {
				images += c.Images
			}
			want := minImages(t, filepath.Join(nbdir, file))
			assert.GreaterOrEqual(t, images, want, "figures shown, against the notebook's stencillab.min_images")
			took = append(took, runTook{file, d, headless})
			for _, f := range answersAfterChecks(t, tab, file, p) {
				t.Errorf("%s", f)
			}
			saveNotebook(t, tab, nbdir, file, saved)
			if n, ok := sliders[file]; ok {
				assert.Equal(t, n, liveSliders(t, tab, file), "sliders run on their own and moved, each redrawing its figure")
			}
		})
	}

	// Run All never waits on a slider: it ends within twice the notebook's
	// headless run, on a machine as loaded as when that was recorded.
	for _, f := range slowRuns(took) {
		t.Errorf("%s", f)
	}

	var names []string
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(saved, f)); err == nil {
			names = append(names, f)
		} else {
			t.Errorf("%s was not saved from the browser, so nbcheck cannot check it", f)
		}
	}
	report, failed := nbcheck(t, root, saved, names, written)
	fmt.Print(report)
	assert.Empty(t, failed, "nbcheck on the notebooks saved from the browser:\n%s", report)
	out := filepath.Join(root, "notebooks", "_out")
	if err := os.MkdirAll(out, 0o755); err == nil {
		for _, f := range names {
			if b, err := os.ReadFile(filepath.Join(saved, f)); err == nil {
				_ = os.WriteFile(filepath.Join(out, f), b, 0o644)
			}
		}
	}
}
