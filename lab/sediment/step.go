package sediment

import "fmt"

// rowTerms holds, for one padded row, the per-point terms of the scheme:
// a = αs, b = β(1−s), and the sand and mud shares σ and μ of
// D = a/Cs + b/Cm.
type rowTerms struct {
	a, b, sig, mu []float64
}

func newRowTerms(n int) *rowTerms {
	return &rowTerms{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)}
}

// fill computes the terms of padded row j from α, β and s.
func (t *rowTerms) fill(bs *Basin, j int) {
	w := bs.Pitch()
	al, be, s := bs.Alpha.Data[j*w:][:w], bs.Beta.Data[j*w:][:w], bs.S.Data[j*w:][:w]
	ics, icm := 1/bs.P.Cs, 1/bs.P.Cm
	for i := range w {
		a := al[i] * s[i]
		b := be[i] * (1 - s[i])
		d := a*ics + b*icm
		t.a[i], t.b[i] = a, b
		t.sig[i], t.mu[i] = a*ics/d, b*icm/d
	}
}

// violation records the first point of a band whose sand fraction would
// leave [0, 1].
type violation struct {
	i, j int
	n, m float64
}

// upwind returns the sand and mud a face brings in and the sediment it
// takes out, for a face flux f and the neighbour's shares.
func upwind(f, sig, mu float64) (sand, mud, out float64) {
	if f > 0 {
		return f * sig, f * mu, 0
	}
	return 0, 0, -f
}

// band advances rows lo ≤ j < hi into hNext and sNext: h by eq. 3 and s by
// eq. 4 in upwind flux form. It returns the first point where the sand or
// mud left in the layer would be negative.
func (b *Basin) band(lo, hi int) *violation {
	w := b.Pitch()
	hcs, hcm := 0.5/b.P.Cs, 0.5/b.P.Cm
	rx, ry := 1/(b.P.Dx*b.P.Dx), 1/(b.P.Dy*b.P.Dy)
	dt, A := b.P.Dt, b.P.A
	h, s := b.H.Data, b.S.Data
	hn, sn := b.hNext.Data, b.sNext.Data
	south, cur, north := newRowTerms(w), newRowTerms(w), newRowTerms(w)
	south.fill(b, lo-1)
	cur.fill(b, lo)
	var bad *violation
	for j := lo; j < hi; j++ {
		north.fill(b, j+1)
		a0, b0 := cur.a, cur.b
		for i := 1; i <= b.Nx; i++ {
			c := j*w + i
			hc := h[c]
			ke := (a0[i]+a0[i+1])*hcs + (b0[i]+b0[i+1])*hcm
			kw := (a0[i-1]+a0[i])*hcs + (b0[i-1]+b0[i])*hcm
			kn := (a0[i]+north.a[i])*hcs + (b0[i]+north.b[i])*hcm
			ks := (south.a[i]+a0[i])*hcs + (south.b[i]+b0[i])*hcm
			fe := ke * (h[c+1] - hc) * rx
			fw := kw * (h[c-1] - hc) * rx
			fn := kn * (h[c+w] - hc) * ry
			fs := ks * (h[c-w] - hc) * ry
			hn[c] = hc + dt*((fe+fw)+(fn+fs))

			se, me, oe := upwind(fe, cur.sig[i+1], cur.mu[i+1])
			sw, mw, ow := upwind(fw, cur.sig[i-1], cur.mu[i-1])
			sno, mno, ono := upwind(fn, north.sig[i], north.mu[i])
			sso, mso, oso := upwind(fs, south.sig[i], south.mu[i])
			out := (oe + ow) + (ono + oso)
			n := A*s[c] + dt*(((se+sw)+(sno+sso))-cur.sig[i]*out)
			m := A*(1-s[c]) + dt*(((me+mw)+(mno+mso))-cur.mu[i]*out)
			if !(n >= 0 && m >= 0 && n+m > 0) && bad == nil {
				bad = &violation{i, j, n, m}
			}
			sn[c] = n / (n + m)
		}
		south, cur, north = cur, north, south
	}
	return bad
}

// Step advances the basin by one time step, h by eq. 3 and s by eq. 4 in
// upwind flux form, the rows split over all cores. If the step would take
// s out of [0, 1] somewhere (Δt beyond the sand-fraction limit of the
// current state) it returns an error wrapping ErrUnstable that names the
// point and the limit, and leaves the basin unchanged.
func (b *Basin) Step() error {
	if err := b.checkShape(); err != nil {
		return err
	}
	if err := b.checkBoundLen(); err != nil {
		return err
	}
	if err := b.P.CheckParams(); err != nil { // changed since Prepare?
		return err
	}
	if !b.prepared || len(b.hNext.Data) != len(b.H.Data) {
		if err := b.Prepare(); err != nil {
			return err
		}
	}
	b.fillGhostH(b.H)
	bads := make([]*violation, b.Ny+1) // by the first row of each band
	parallelRows(1, b.Ny+1, func(lo, hi int) { bads[lo] = b.band(lo, hi) })
	for _, v := range bads {
		if v != nil {
			l := b.limits()
			return fmt.Errorf("sediment: step %d: the sand fraction at (%d, %d) would leave [0, 1] (sand %g, mud %g left in the layer): Δt = %g exceeds the sand-fraction limit %g of this state: %w",
				b.Steps+1, v.i, v.j, v.n, v.m, b.P.Dt, l.DtS, ErrUnstable)
		}
	}
	b.H, b.hNext = b.hNext, b.H
	b.S, b.sNext = b.sNext, b.S
	b.Steps++
	return nil
}

// Run takes n steps and stops at the first error.
func (b *Basin) Run(n int) error {
	if n < 0 {
		return fmt.Errorf("sediment: %d steps: the number of steps must not be negative: %w", n, ErrInput)
	}
	for range n {
		if err := b.Step(); err != nil {
			return err
		}
	}
	return nil
}

// StepPrinted advances the basin by one step of the scheme exactly as the
// paper prints it: h by eq. 3, then s from h^ℓ, h^{ℓ+1} and s^ℓ by eq. 4,
//
//	A(s'−s)/Δt + s'(h'−h)/Δt = Ux·(h'_{i+1,j} − h'_{i−1,j})/(2CsΔx²) + Uy·(h'_{i,j+1} − h'_{i,j−1})/(2CsΔy²)
//
// with Ux = α_{i,j}s_{i,j} − α_{i−1,j}s_{i−1,j} if h'_{i−1,j} > h'_{i+1,j}, else
// α_{i+1,j}s_{i+1,j} − α_{i,j}s_{i,j}. The paper's y-conditions are misprinted
// (both compare h_{i,j+1} with itself); following the x-direction, Uy is
// α_{i,j}s_{i,j} − α_{i,j−1}s_{i,j−1} if h'_{i,j−1} > h'_{i,j+1}, else
// α_{i,j+1}s_{i,j+1} − α_{i,j}s_{i,j}. It is kept to show why Step does not
// use it: its right-hand side lacks the αs∇²h part of ∇·(αs∇h), so s leaves
// [0, 1] where pure sand erodes. It runs on one core and checks nothing
// beyond Prepare.
func (b *Basin) StepPrinted() error {
	if err := b.checkShape(); err != nil {
		return err
	}
	if err := b.checkBoundLen(); err != nil {
		return err
	}
	if err := b.P.CheckParams(); err != nil { // changed since Prepare?
		return err
	}
	if !b.prepared || len(b.hNext.Data) != len(b.H.Data) {
		if err := b.Prepare(); err != nil {
			return err
		}
	}
	b.fillGhostH(b.H)
	b.band(1, b.Ny+1) // h' into hNext; its s' is replaced below
	hp := b.hNext
	b.fillGhostH(hp)
	w := b.Pitch()
	cx, cy := 1/(2*b.P.Cs*b.P.Dx*b.P.Dx), 1/(2*b.P.Cs*b.P.Dy*b.P.Dy)
	al, s, h, hn, sn := b.Alpha.Data, b.S.Data, b.H.Data, hp.Data, b.sNext.Data
	as := func(k int) float64 { return al[k] * s[k] }
	for j := 1; j <= b.Ny; j++ {
		for i := 1; i <= b.Nx; i++ {
			c := j*w + i
			var ux, uy float64
			if hn[c-1] > hn[c+1] {
				ux = as(c) - as(c-1)
			} else {
				ux = as(c+1) - as(c)
			}
			if hn[c-w] > hn[c+w] {
				uy = as(c) - as(c-w)
			} else {
				uy = as(c+w) - as(c)
			}
			r := ux*(hn[c+1]-hn[c-1])*cx + uy*(hn[c+w]-hn[c-w])*cy
			sn[c] = (b.P.A*s[c] + b.P.Dt*r) / (b.P.A + (hn[c] - h[c]))
		}
	}
	b.H, b.hNext = b.hNext, b.H
	b.S, b.sNext = b.sNext, b.S
	b.Steps++
	return nil
}
