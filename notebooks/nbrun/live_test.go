package nbrun

import (
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
