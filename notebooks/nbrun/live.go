package nbrun

import (
	"fmt"
	"html"
	"os"
	"strconv"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
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

// SliderFigure shows the figure draw makes for value, at w×h. In a live
// notebook (LiveBrowser) a slider from min to max, labelled label, and a
// Done button stand above it: each move redraws the figure in place, and
// Done, or SliderIdleEnv seconds without a move, ends the cell with the
// last figure. Elsewhere, in a headless run above all, it shows the
// figure for value only, so that nothing waits for a browser. A figure
// that fails to draw for a position is reported in the label and the
// previous one stays.
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
	dom.Append(root, fmt.Sprintf(`<span>%s = <b id="%s_value">%d</b>&nbsp;</span>`, label, root, value))
	if err := fig.ShowUpdate(figID, d, w, h); err != nil {
		return err
	}
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
	var ws built
	wait := widgetStart()
	select {
	case ws = <-ready:
	case <-time.After(wait):
		// No browser drew the widgets: the static figure stays, and the
		// cell says why there is no slider.
		gonbui.UpdateHtml(controls, fmt.Sprintf(`<span style="color:#7a7a7a">the slider's controls did not come up within %v: the figure shows %s = %d (run the cell again to retry; %s sets the wait in seconds)</span>`,
			wait, html.EscapeString(label), value, WidgetStartEnv))
		return nil
	}
	idle := sliderIdle()
	dom.Append(root, fmt.Sprintf(`<span style="color:#7a7a7a">&nbsp;move the slider to redraw; Done, or %v without a move, lets the notebook go on</span>`, idle))
	moves := ws.s.Listen().LatestOnly()
	done := ws.b.Listen()
	defer moves.Close()
	defer done.Close()
	for {
		select {
		case v := <-moves.C:
			if v < min || v > max {
				continue
			}
			dom.SetInnerText(root+"_value", strconv.Itoa(v))
			nd, err := safeDraw(draw, v)
			if err != nil {
				dom.SetInnerText(root+"_value", fmt.Sprintf("%d: %v", v, err))
				continue
			}
			if err := fig.ShowUpdate(figID, nd, w, h); err != nil {
				return err
			}
		case <-done.C:
			gonbui.UpdateHtml(controls, "")
			return nil
		case <-time.After(idle):
			gonbui.UpdateHtml(controls, "")
			return nil
		}
	}
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
