// Package exchange is an attack on the grader, for its tests: it issues
// every send and receive in one Group, which the exercise's communicator
// refuses, so that no order has to be worked out.
package exchange

import "stencillab.dev/lab/halo"

// Exchange sends both edges and receives both halos in one group.
func Exchange(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
	n := p.Halo * ny * nx
	last := len(local) - n
	return c.Group(func() error {
		if p.Down >= 0 {
			if err := c.Send(local, n, n, p.Down); err != nil {
				return err
			}
			if err := c.Recv(local, 0, n, p.Down); err != nil {
				return err
			}
		}
		if p.Up >= 0 {
			if err := c.Send(local, last-n, n, p.Up); err != nil {
				return err
			}
			return c.Recv(local, last, n, p.Up)
		}
		return nil
	})
}
