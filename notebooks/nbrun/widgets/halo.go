package widgets

import (
	"fmt"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"gonum.org/v1/plot/vg"
	"stencillab.dev/figures/fig"
)

// AnimateHaloExchange draws the exchange on the split of nz planes over
// ranks with halos h deep, step by step, into one output that each frame
// replaces (a saved notebook keeps the last frame).
func AnimateHaloExchange(nz, ranks, h int, delay time.Duration) error {
	if delay < 0 || delay > 5*time.Second {
		return fmt.Errorf("nbrun: halo exchange: delay %v outside 0…5s", delay)
	}
	id := "stencillab_halo_" + gonbui.UniqueId()
	for frame := range fig.HaloExchangeFrames {
		d, err := fig.HaloExchange(nz, ranks, h, frame)
		if err != nil {
			return err
		}
		if err := fig.ShowUpdate(id, d, fig.Wide, 5.6*vg.Inch); err != nil {
			return err
		}
		time.Sleep(delay)
	}
	return nil
}
