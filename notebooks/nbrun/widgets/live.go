package widgets

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"strconv"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"
	"gonum.org/v1/plot/vg"
	"stencillab.dev/figures/fig"
)

// BrowserEnv is the environment variable that says a browser shows the
// notebook: `make lab` and the browser test set it to 1 for the Jupyter
// server, whose kernels inherit it. A headless run (nbconvert) leaves it
// unset, so that no cell waits for a widget that no browser will draw.
const BrowserEnv = "STENCILLAB_BROWSER"

// SliderIdleEnv is the environment variable that bounds, in seconds, how
// long a slider waits for the next move before its cell lets the notebook
// go on; unset or invalid, DefaultSliderIdle.
const SliderIdleEnv = "STENCILLAB_SLIDER_IDLE"

// DefaultSliderIdle is how long a slider waits for a move before its cell
// ends, when SliderIdleEnv does not say.
const DefaultSliderIdle = 3 * time.Minute

// WidgetStartEnv is the environment variable that bounds, in seconds, how
// long a slider waits for the browser to draw its controls; past it the
// cell says so, keeps its static picture and goes on. Unset or invalid,
// DefaultWidgetStart. A loaded server (a class on one machine, a test)
// may need longer.
const WidgetStartEnv = "STENCILLAB_WIDGET_START"

// DefaultWidgetStart is how long a slider waits for its controls when
// WidgetStartEnv does not say.
const DefaultWidgetStart = 15 * time.Second

// MaxSliderSteps bounds the positions of a slider, each of which may run
// a simulation.
const MaxSliderSteps = 1000

// LiveBrowser reports whether the code runs in a notebook that a browser
// shows (BrowserEnv is 1), where widgets and animations work. In a
// headless run, or outside a notebook, it is false.
func LiveBrowser() bool {
	return gonbui.IsNotebook && os.Getenv(BrowserEnv) == "1"
}

// sliderIdle returns the idle bound of a slider.
func sliderIdle() time.Duration { return envSeconds(SliderIdleEnv, DefaultSliderIdle) }

// widgetStart returns how long a slider waits for its controls.
func widgetStart() time.Duration { return envSeconds(WidgetStartEnv, DefaultWidgetStart) }

// envSeconds returns the whole seconds, 1 to 3600, that the environment
// variable name gives, or def when it gives none.
func envSeconds(name string, def time.Duration) time.Duration {
	if s, err := strconv.Atoi(os.Getenv(name)); err == nil && s > 0 && s <= 3600 {
		return time.Duration(s) * time.Second
	}
	return def
}

// BusyAfter is how long a redraw of a slider runs before its controls say
// that it is busy.
const BusyAfter = time.Second

// SliderNoControlsNote begins the line a slider leaves when its controls
// did not come up within WidgetStartEnv's bound (the page's channel to the
// kernel was not there in time): its static figure stays.
const SliderNoControlsNote = "the slider's controls did not come up within"

// SliderIdleNote begins the line a slider leaves when it stopped for want
// of a move (SliderIdleEnv), so that a student, and a test, can tell it
// from Done, which leaves none.
const SliderIdleNote = "the slider stopped after no move for"

// SliderLive begins the line a slider shows once it redraws on a move.
const SliderLive = "move the slider to redraw"

// SliderFigure shows the figure draw makes for value, at w×h, at once: a
// saved notebook and a headless run keep it. In a live notebook
// (LiveBrowser) a slider from min to max, labelled label, and a Done
// button then come up above it, and the slider is live as soon as they
// connect: each move redraws the figure in place, saying so when a redraw
// takes over BusyAfter. The cell never holds up other cells: when another
// cell is queued behind it (Run All, or the student running the next
// cell) it ends at once with the figure it shows, saying how to move the
// slider again. Done, or SliderIdleEnv seconds without a move, ends it
// too, and so does WidgetStartEnv seconds without the controls coming up.
// A figure that fails to draw for a position is reported in the label and
// the previous one stays.
func SliderFigure(label string, min, max, value int, draw func(v int) (fig.Drawer, error), w, h vg.Length) error {
	switch {
	case label == "":
		return fmt.Errorf("nbrun: slider: empty label")
	case draw == nil:
		return fmt.Errorf("nbrun: slider %s: nil draw function", label)
	case min >= max:
		return fmt.Errorf("nbrun: slider %s: min %d must be below max %d", label, min, max)
	case max-min > MaxSliderSteps:
		return fmt.Errorf("nbrun: slider %s: %d positions exceed %d", label, max-min+1, MaxSliderSteps)
	case value < min || value > max:
		return fmt.Errorf("nbrun: slider %s: value %d outside %d…%d", label, value, min, max)
	}
	d, err := safeDraw(draw, value)
	if err != nil {
		return fmt.Errorf("nbrun: slider %s = %d: %w", label, value, err)
	}
	if _, err := fig.PNG(d, w, h, 1); err != nil {
		return fmt.Errorf("nbrun: slider %s: %w", label, err)
	}
	if !LiveBrowser() {
		return fig.Show(d, w, h)
	}
	uid := gonbui.UniqueId()
	figID := "stencillab_slider_fig_" + uid
	controls := "stencillab_slider_controls_" + uid
	root := "stencillab_slider_" + uid
	gonbui.UpdateHtml(controls, fmt.Sprintf(`<div id="%s" class="stencillab-slider"></div>`, root))
	dom.Append(root, fmt.Sprintf(`<span>%s = <b id="%s_value">%d</b>&nbsp;</span>`, html.EscapeString(label), root, value))
	// The figure first: it is there whatever becomes of the controls.
	if err := fig.ShowUpdate(figID, d, w, h); err != nil {
		return err
	}
	// Whether another cell waits behind this one, which the page knows:
	// the probe reports it once, when it first sees one.
	queuedAddr := "/stencillab/queued/" + uid
	queued := comms.Listen[int](queuedAddr)
	defer queued.Close()
	dom.TransientJavascript(queueProbe(root, queuedAddr))

	type built struct {
		s *widgets.SliderBuilder
		b *widgets.ButtonBuilder
	}
	ready := make(chan built, 1)
	go func() {
		s := widgets.Slider(min, max, value).AppendTo(root).Done()
		b := widgets.Button("Done").AppendTo(root).Done()
		ready <- built{s, b}
	}()
	status := root + "_status"
	dom.Append(root, fmt.Sprintf(`<span id="%s" style="color:#7a7a7a">&nbsp;connecting the slider…</span>`, status))
	end := func(note string) {
		if note == "" {
			gonbui.UpdateHtml(controls, "")
			return
		}
		gonbui.UpdateHtml(controls, `<span style="color:#7a7a7a">`+note+`</span>`)
	}
	again := fmt.Sprintf("the figure shows %s = %d; run this cell on its own (Shift-Enter) to move the slider", html.EscapeString(label), value)
	wait := widgetStart()
	var ws built
	select {
	case ws = <-ready:
	case <-queued.C:
		end("another cell was waiting, so this one did not: " + again)
		return nil
	case <-time.After(wait):
		// No browser drew the widgets: the static figure stays, and the
		// cell says why there is no slider.
		end(fmt.Sprintf("%s %v: %s (%s sets the wait in seconds)", SliderNoControlsNote, wait, again, WidgetStartEnv))
		return nil
	}
	idle := sliderIdle()
	// Listening first: the page says the slider is live only once a move
	// is heard (a move made before would be lost).
	moves := ws.s.Listen().LatestOnly()
	done := ws.b.Listen()
	defer moves.Close()
	defer done.Close()
	dom.SetInnerHtml(status, fmt.Sprintf("&nbsp;%s; Done, %v without a move, or running another cell lets the notebook go on", SliderLive, idle))
	shown := value
	for {
		select {
		case v := <-moves.C:
			if v < min || v > max {
				continue
			}
			dom.SetInnerText(root+"_value", strconv.Itoa(v))
			nd, err := drawBusy(draw, v, BusyAfter, func(busy bool) {
				if busy {
					dom.SetInnerHtml(status, fmt.Sprintf("&nbsp;&#8987; drawing %s = %d…", html.EscapeString(label), v))
				} else {
					dom.SetInnerHtml(status, "&nbsp;")
				}
			})
			if err != nil {
				dom.SetInnerText(root+"_value", fmt.Sprintf("%d: %v", v, err))
				continue
			}
			if err := fig.ShowUpdate(figID, nd, w, h); err != nil {
				return err
			}
			shown = v
		case <-queued.C:
			end(fmt.Sprintf("another cell was run, so the slider stopped at %s = %d; run this cell again to move it", html.EscapeString(label), shown))
			return nil
		case <-done.C:
			end("")
			return nil
		case <-time.After(idle):
			end(fmt.Sprintf("%s %v at %s = %d: run this cell again to move it", SliderIdleNote, idle, html.EscapeString(label), shown))
			return nil
		}
	}
}

// queueProbe is the page's side of SliderFigure: JavaScript that watches,
// while the slider's root element is on the page, for code cells queued
// to run (Jupyter Notebook marks each with the class "running" and the
// prompt "*", this one included) and sends 1 to address, once, when it
// sees any besides this one. It sends 1 too when the slider's element
// leaves the page: the student ran the same cell again, or cleared its
// output, and the run that drew it must not hold up the next one (Jupyter
// shows a cell queued behind itself once, so the count cannot see it).
// Where the page is no Jupyter Notebook it sends nothing, and the slider
// waits for Done or its idle bound as before.
func queueProbe(root, address string) string {
	// JSON escapes <, > and &, so that no literal ends the script element.
	r, _ := json.Marshal(root)
	a, _ := json.Marshal(address)
	return fmt.Sprintf(`(() => {
	const root = %s, address = %s;
	const queued = () => {
		const nb = globalThis.Jupyter && globalThis.Jupyter.notebook;
		if (!nb || !nb.get_cells) return 0;
		return nb.get_cells().filter(c => c.cell_type === 'code' &&
			((c.element && c.element.hasClass('running')) || c.input_prompt_number === '*')).length - 1;
	};
	const timer = setInterval(() => {
		if (!document.getElementById(root)) {
			clearInterval(timer);
			if (globalThis.gonb_comm) globalThis.gonb_comm.send(address, 1);
			return;
		}
		if (queued() > 0 && globalThis.gonb_comm) {
			clearInterval(timer);
			globalThis.gonb_comm.send(address, 1);
		}
	}, 200);
})();`, r, a)
}

// drawBusy draws v, and calls busy(true) when the drawing has taken after
// without ending, then busy(false) when it ends; a quick drawing calls
// busy not at all.
func drawBusy(draw func(int) (fig.Drawer, error), v int, after time.Duration, busy func(bool)) (fig.Drawer, error) {
	type drawn struct {
		d   fig.Drawer
		err error
	}
	res := make(chan drawn, 1)
	go func() {
		d, err := safeDraw(draw, v)
		res <- drawn{d, err}
	}()
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case r := <-res:
		return r.d, r.err
	case <-t.C:
	}
	busy(true)
	r := <-res
	busy(false)
	return r.d, r.err
}

// safeDraw calls draw, turning a panic in it into an error.
func safeDraw(draw func(int) (fig.Drawer, error), v int) (d fig.Drawer, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, fmt.Errorf("drawing panicked: %v", p)
		}
	}()
	d, err = draw(v)
	if err == nil && d == nil {
		err = fmt.Errorf("nil figure")
	}
	return d, err
}

// AnimateZMarch shows the march in z of the coarsened and register-tiled
// kernels. In a live notebook (LiveBrowser) it plays the frames of
// fig.ZMarch in one output, delay apart (0 to 5 s), then leaves the strip
// of all frames (fig.ZMarchStrip) there; elsewhere it shows the strip
// only, which is what a saved notebook keeps.
func AnimateZMarch(delay time.Duration) error {
	if delay < 0 || delay > 5*time.Second {
		return fmt.Errorf("nbrun: z-march: delay %v outside 0…5s", delay)
	}
	strip, err := fig.ZMarchStrip()
	if err != nil {
		return err
	}
	if !LiveBrowser() {
		return fig.Show(strip, fig.ZMarchStripWidth, fig.ZMarchStripHeight)
	}
	id := "stencillab_zmarch_" + gonbui.UniqueId()
	for it := range fig.ZMarchFrames {
		d, err := fig.ZMarch(it)
		if err != nil {
			return err
		}
		if err := fig.ShowUpdate(id, d, fig.Wide, fig.ZMarchHeight); err != nil {
			return err
		}
		time.Sleep(delay)
	}
	return fig.ShowUpdate(id, strip, fig.ZMarchStripWidth, fig.ZMarchStripHeight)
}

// ShowThreads shows the figure of one block's threads of step (basic,
// tiled, coarsened, register_tiled or fig.Star13), traced on the
// simulator: which thread loads, computes or idles. fig.Star13's kernel
// is an exercise's answer: without the tag "hidden" its figure is drawn
// from the committed record of the same launch.
func ShowThreads(step string) error {
	d, err := fig.Threads(step)
	if err != nil {
		return fmt.Errorf("nbrun: threads: %w", err)
	}
	return fig.Show(d, fig.Wide, fig.ThreadsHeight)
}
