package sediment

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SafetyFactor is the fraction of the stable time step that the scenarios
// use.
const SafetyFactor = 0.9

// wave returns n values of a smooth random profile in [0, 1]: a sum of two
// sines of random phase, with one and three periods over the mesh.
func wave(n int, r *rand.Rand) []float64 {
	p1, p3 := 2*math.Pi*r.Float64(), 2*math.Pi*r.Float64()
	v := make([]float64, n+2)
	for k := range v {
		x := 2 * math.Pi * float64(k) / float64(n+1)
		v[k] = 0.5 + 0.35*math.Sin(x+p1) + 0.15*math.Sin(3*x+p3)
	}
	return v
}

// Random returns a basin of nx×ny points with random admissible fields
// drawn from seed: smooth profiles plus white noise, α in [0.5, 1.3],
// β in [0.4, 1.4], s in [0.05, 0.95] and h around 1 with slopes well
// under the layer thickness A = 1. The mesh spacing is 1, Cs = 1,
// Cm = 1.25, the boundary has zero flux and Δt is SafetyFactor times the
// stable limit. The same seed gives the same basin.
func Random(nx, ny int, seed uint64) (*Basin, error) {
	b, err := NewBasin(nx, ny, Params{Dx: 1, Dy: 1, Dt: 1, Cs: 1, Cm: 1.25, A: 1})
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x5ed1_3e47))
	ax, ay, bx, by := wave(nx, r), wave(ny, r), wave(nx, r), wave(ny, r)
	sx, sy, hx, hy := wave(nx, r), wave(ny, r), wave(nx, r), wave(ny, r)
	if err := b.Fill(func(i, j int) (float64, float64, float64, float64) {
		alpha := 0.5 + 0.6*ax[i]*ay[j] + 0.2*r.Float64()
		beta := 0.4 + 0.8*bx[i]*by[j] + 0.2*r.Float64()
		s := 0.05 + 0.8*sx[i]*sy[j] + 0.1*r.Float64()
		h := 1 + 0.6*(hx[i]-0.5)*(hy[j]-0.5) + 0.02*r.Float64()
		return alpha, beta, h, s
	}); err != nil {
		return nil, err
	}
	return b, b.useStableStep()
}

// useStableStep sets Δt to SafetyFactor times the stable limit and
// prepares the basin.
func (b *Basin) useStableStep() error {
	l, err := b.Limits()
	if err != nil {
		return err
	}
	b.P.Dt = SafetyFactor * l.Dt
	return b.prepareWith(l)
}

// Delta returns the notebook's basin: a muddy plain of nx×ny points
// (nx, ny ≥ 8) at height 1 with a gentle random relief, fed by a river through the
// middle eighth of the west boundary. The river brings sediment at rate
// 0.04 per unit length, 90 % sand; sand diffuses slowly (α = 0.25), mud
// fast (β = 1), so a sandy lobe builds at the mouth and the mud spreads
// far beyond it. Spacing 1, Cs = Cm = 1, A = 1, Δt at SafetyFactor of the
// limit; the other boundaries have zero flux.
func Delta(nx, ny int) (*Basin, error) {
	if nx < 8 || ny < 8 {
		return nil, fmt.Errorf("sediment: delta basin %d×%d is smaller than its 8×8 minimum: %w", nx, ny, ErrInput)
	}
	b, err := NewBasin(nx, ny, Params{Dx: 1, Dy: 1, Dt: 1, Cs: 1, Cm: 1, A: 1})
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(8, 2013))
	hx, hy := wave(nx, r), wave(ny, r)
	if err := b.Fill(func(i, j int) (float64, float64, float64, float64) {
		h := 1 + 0.2*(hx[i]-0.5)*(hy[j]-0.5) + 0.01*r.Float64()
		return 0.25, 1, h, 0.2
	}); err != nil {
		return nil, err
	}
	b.Bound.West = make([]Inflow, ny)
	for j := ny/2 - ny/16; j < ny/2+ny/16; j++ {
		b.Bound.West[j] = Inflow{Rate: 0.04, Sand: 0.9}
	}
	return b, b.useStableStep()
}
