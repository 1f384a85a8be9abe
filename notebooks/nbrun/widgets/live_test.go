package widgets

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/figures/fig"
)

// TestLiveOnlyInABrowser checks that outside a notebook, even with the
// browser variable set, nothing waits for a widget: the slider draws its
// figure once, for the value given, and the z-march shows its strip.
func TestLiveOnlyInABrowser(t *testing.T) {
	t.Setenv(BrowserEnv, "1")
	assert.False(t, LiveBrowser(), "outside a notebook no browser shows the output")
	var drawn []int
	err := SliderFigure("T", 3, 10, 6, func(v int) (fig.Drawer, error) {
		drawn = append(drawn, v)
		return fig.ZMarch(0)
	}, fig.Wide, fig.ZMarchHeight)
	require.NoError(t, err)
	assert.Equal(t, []int{6}, drawn, "the figure is drawn once, for the value")
	require.NoError(t, AnimateZMarch(0))
	require.NoError(t, ShowThreads(fig.Star13))
}

// TestSliderIdle checks the idle bound read from the environment.
func TestSliderIdle(t *testing.T) {
	for _, c := range []struct {
		env  string
		want string
	}{{"", DefaultSliderIdle.String()}, {"20", "20s"}, {"-3", DefaultSliderIdle.String()}, {"x", DefaultSliderIdle.String()}, {"99999", DefaultSliderIdle.String()}} {
		t.Setenv(SliderIdleEnv, c.env)
		assert.Equal(t, c.want, sliderIdle().String(), "%s=%q", SliderIdleEnv, c.env)
	}
}

// TestWidgetStart checks the wait for a slider's controls read from the
// environment.
func TestWidgetStart(t *testing.T) {
	for _, c := range []struct {
		env  string
		want time.Duration
	}{{"", DefaultWidgetStart}, {"120", 2 * time.Minute}, {"1", time.Second}, {"0", DefaultWidgetStart},
		{"-5", DefaultWidgetStart}, {"15s", DefaultWidgetStart}, {"3601", DefaultWidgetStart}} {
		t.Setenv(WidgetStartEnv, c.env)
		assert.Equal(t, c.want, widgetStart(), "%s=%q", WidgetStartEnv, c.env)
	}
}

// TestDrawBusy checks that a redraw says it is busy only when it takes
// longer than the bound, and says it is done after.
func TestDrawBusy(t *testing.T) {
	z := func(v int) (fig.Drawer, error) { return fig.ZMarch(0) }
	var calls []bool
	rec := func(b bool) { calls = append(calls, b) }
	d, err := drawBusy(z, 3, time.Minute, rec)
	require.NoError(t, err)
	assert.NotNil(t, d)
	assert.Empty(t, calls, "a quick drawing says nothing")

	release := make(chan struct{})
	slow := func(v int) (fig.Drawer, error) { <-release; return fig.ZMarch(0) }
	calls = nil
	go func() { time.Sleep(50 * time.Millisecond); close(release) }()
	d, err = drawBusy(slow, 3, 5*time.Millisecond, rec)
	require.NoError(t, err)
	assert.NotNil(t, d)
	assert.Equal(t, []bool{true, false}, calls, "busy while drawing, then not")

	calls = nil
	_, err = drawBusy(func(int) (fig.Drawer, error) { panic("boom") }, 3, time.Minute, rec)
	assert.ErrorContains(t, err, "drawing panicked: boom")
}

// TestQueueProbe checks the page's side of the slider: it reports, to
// the slider's address, code cells queued besides its own and its
// slider's leaving the page (the cell run again), and stops then.
func TestQueueProbe(t *testing.T) {
	js := queueProbe("stencillab_slider_7", "/stencillab/queued/7")
	assert.Contains(t, js, `"stencillab_slider_7"`)
	assert.Contains(t, js, `"/stencillab/queued/7"`)
	assert.Contains(t, js, "hasClass('running')")
	assert.Contains(t, js, ".length - 1", "its own cell runs too")
	assert.Contains(t, js, "clearInterval", "it stops when its slider goes")
	assert.Contains(t, js, "gonb_comm.send(address, 1)")
	gone := js[strings.Index(js, "!document.getElementById(root)"):]
	gone = gone[:strings.Index(gone, "return;")]
	assert.Contains(t, gone, "gonb_comm.send(address, 1)", "a slider whose element left the page ends its cell")
	// Hostile-looking ids stay inside their string literals.
	js = queueProbe(`a"b`, `</script>`)
	assert.Contains(t, js, `"a\"b"`)
}
