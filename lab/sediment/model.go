package sediment

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"stencillab.dev/lab"
)

// ErrInput is wrapped by every error about an inadmissible input: a
// parameter, a field value or a boundary inflow out of its range.
var ErrInput = errors.New("inadmissible input")

// ErrUnstable is wrapped by every error about a time step beyond the
// scheme's stable limit.
var ErrUnstable = errors.New("time step beyond the stable limit")

// Params are the constants of one simulation.
type Params struct {
	Dx, Dy float64 // mesh spacing in x and y
	Dt     float64 // time step
	Cs, Cm float64 // compaction ratios of sand and mud
	A      float64 // thickness of the transport layer
}

// Inflow is the sediment prescribed at one boundary face.
type Inflow struct {
	// Rate is the volume of sediment entering the basin per unit boundary
	// length per unit time; negative values leave the basin. It raises the
	// sum of h over the interior by Rate/Δ per unit time, Δ the spacing
	// across the face.
	Rate float64
	// Sand is the sand share of the sediment that enters, in [0, 1]. It is
	// ignored where Rate ≤ 0: leaving sediment has the composition of the
	// point it leaves.
	Sand float64
}

// Boundary holds the inflow of every boundary face. West (i = 0) and East
// (i = Nx+1) have Ny entries, row j at index j−1; South (j = 0) and North
// (j = Ny+1) have Nx entries, column i at index i−1. A nil side has zero
// flux.
type Boundary struct {
	West, East, South, North []Inflow
}

// Basin is the state of one simulation: parameters, the four fields with
// their ghost layer, the prescribed boundary inflow and the step count.
//
// Fill the interior of Alpha, Beta, H and S (1 ≤ i ≤ Nx, 1 ≤ j ≤ Ny), set
// Bound, then call Prepare, which checks the inputs, fills the ghost points
// and refuses an unstable Δt. Step calls Prepare itself the first time;
// after changing a field or a parameter by hand, call Prepare again.
type Basin struct {
	Nx, Ny int
	P      Params
	// Alpha and Beta are the diffusivities of sand and mud, H the basin
	// height and S the sand fraction, each (Ny+2)×(Nx+2) with ghosts.
	Alpha, Beta, H, S *lab.Grid2[float64]
	Bound             Boundary
	Steps             int // time steps taken since NewBasin

	hNext, sNext *lab.Grid2[float64]
	prepared     bool
}

// NewBasin returns a basin of nx×ny interior points with zeroed fields and
// zero-flux boundaries.
func NewBasin(nx, ny int, p Params) (*Basin, error) {
	if nx < 1 || ny < 1 {
		return nil, fmt.Errorf("sediment: mesh %d×%d needs at least one interior point per side: %w", nx, ny, lab.ErrSize)
	}
	if pts := (float64(nx) + 2) * (float64(ny) + 2); pts > lab.MaxPoints {
		// Checked before nx+2 is formed, which may overflow.
		return nil, fmt.Errorf("sediment: mesh %d×%d with ghosts has %.4g points, over the limit of %d: %w", nx, ny, pts, int64(lab.MaxPoints), lab.ErrSize)
	}
	if err := CheckMemory(nx, ny, 1); err != nil {
		return nil, err
	}
	b := &Basin{Nx: nx, Ny: ny, P: p}
	var err error
	for _, g := range []**lab.Grid2[float64]{&b.Alpha, &b.Beta, &b.H, &b.S} {
		if *g, err = lab.NewGrid2[float64](ny+2, nx+2); err != nil {
			return nil, fmt.Errorf("sediment: mesh %d×%d with ghosts: %w", nx, ny, err)
		}
	}
	return b, nil
}

// BasinFields is the number of padded float64 fields a basin holds once
// it has stepped: α, β, h, s and the next h and s.
const BasinFields = 6

// BasinBytes returns the bytes of one basin of nx×ny interior points: its
// BasinFields padded float64 fields.
func BasinBytes(nx, ny int) uint64 {
	return BasinFields * 8 * uint64(nx+2) * uint64(ny+2)
}

// CheckMemory checks, before anything is allocated, that basins of nx×ny
// interior points fit in the memory available (lab.AvailableMemory). The
// error wraps lab.ErrMemory and names the largest square mesh that fits:
// "-nx = -ny ≤ 21000 fits".
func CheckMemory(nx, ny, basins int) error {
	if nx < 1 || ny < 1 || basins < 1 || (float64(nx)+2)*(float64(ny)+2) > lab.MaxPoints {
		return nil // NewBasin says what is wrong
	}
	noun := "basin"
	if basins > 1 {
		noun = "basins"
	}
	what := fmt.Sprintf("sediment: %d %s of %d×%d points", basins, noun, nx, ny)
	perPoint := float64(basins * BasinFields * 8)
	return lab.CheckMemory(what, uint64(basins)*BasinBytes(nx, ny), func(avail uint64) string {
		n := lab.LargestSide(avail, perPoint, 2) - 2
		if n < 1 {
			return "not even a 1×1 mesh fits"
		}
		return fmt.Sprintf("-nx = -ny ≤ %d fits", n)
	})
}

// Index returns the flat index of point (i, j) of a padded field, i in
// [0, Nx+1] and j in [0, Ny+1]; −1 for a point outside, or a nil basin.
func (b *Basin) Index(i, j int) int {
	if b == nil || i < 0 || j < 0 || i > b.Nx+1 || j > b.Ny+1 {
		return -1
	}
	return j*(b.Nx+2) + i
}

// Pitch returns the row length of a padded field, Nx+2; 0 for a nil basin.
func (b *Basin) Pitch() int {
	if b == nil {
		return 0
	}
	return b.Nx + 2
}

// Validate checks the basin as Prepare does before a step: fields of the
// padded mesh's shape, positive and finite parameters, diffusivities,
// heights and sand fractions in range, one inflow per boundary face. It
// fills the ghost points, which depend on the boundary. The error wraps
// ErrInput.
func (b *Basin) Validate() error {
	if b == nil {
		return fmt.Errorf("sediment: nil basin: %w", ErrInput)
	}
	return b.validate()
}

// Fill sets the interior of every field from f, which returns α, β, h and
// s at interior point (i, j), 1 ≤ i ≤ Nx, 1 ≤ j ≤ Ny. It returns an error
// wrapping ErrInput, and changes nothing, for a nil f or a basin whose
// fields do not match its mesh.
func (b *Basin) Fill(f func(i, j int) (alpha, beta, h, s float64)) error {
	if err := b.checkShape(); err != nil {
		return err
	}
	if f == nil {
		return fmt.Errorf("sediment: fill with a nil function: %w", ErrInput)
	}
	for j := 1; j <= b.Ny; j++ {
		for i := 1; i <= b.Nx; i++ {
			k := b.Index(i, j)
			b.Alpha.Data[k], b.Beta.Data[k], b.H.Data[k], b.S.Data[k] = f(i, j)
		}
	}
	b.prepared = false
	return nil
}

// Clone returns a deep copy of the basin; nil for a nil basin or one
// without its fields (Validate says what is wrong).
func (b *Basin) Clone() *Basin {
	if b == nil || b.Alpha == nil || b.Beta == nil || b.H == nil || b.S == nil {
		return nil
	}
	c := *b
	c.Alpha, c.Beta, c.H, c.S = b.Alpha.Clone(), b.Beta.Clone(), b.H.Clone(), b.S.Clone()
	c.Bound = Boundary{West: cloneIn(b.Bound.West), East: cloneIn(b.Bound.East),
		South: cloneIn(b.Bound.South), North: cloneIn(b.Bound.North)}
	c.hNext, c.sNext, c.prepared = nil, nil, false
	return &c
}

func cloneIn(in []Inflow) []Inflow {
	if in == nil {
		return nil
	}
	return append([]Inflow(nil), in...)
}

// Interior returns the interior of a padded field as a new Ny×Nx grid; an
// error wrapping ErrInput for a field that is not of the basin's padded
// mesh.
func (b *Basin) Interior(g *lab.Grid2[float64]) (*lab.Grid2[float64], error) {
	if err := b.checkShape(); err != nil {
		return nil, err
	}
	if err := b.checkField("field", g); err != nil {
		return nil, err
	}
	out := &lab.Grid2[float64]{NY: b.Ny, NX: b.Nx, Data: make([]float64, b.Nx*b.Ny)}
	for j := 1; j <= b.Ny; j++ {
		copy(out.Data[(j-1)*b.Nx:j*b.Nx], g.Data[b.Index(1, j):b.Index(b.Nx+1, j)])
	}
	return out, nil
}

// checkField returns an error wrapping ErrInput unless g is a padded field
// of the basin's mesh.
func (b *Basin) checkField(what string, g *lab.Grid2[float64]) error {
	if g == nil {
		return fmt.Errorf("sediment: nil %s: %w", what, ErrInput)
	}
	if g.NX != b.Nx+2 || g.NY != b.Ny+2 || len(g.Data) != g.NX*g.NY {
		return fmt.Errorf("sediment: %s of %d×%d points (%d values) does not match the padded mesh %d×%d: %w: %w",
			what, g.NY, g.NX, len(g.Data), b.Ny+2, b.Nx+2, lab.ErrMismatch, ErrInput)
	}
	return nil
}

// Mass returns the sum of h over the interior, with compensated summation
// so that its own rounding stays far below what the scheme conserves; NaN
// for a basin that fails Validate's shape checks.
func (b *Basin) Mass() float64 {
	if b.checkShape() != nil {
		return math.NaN()
	}
	var sum, comp float64
	for j := 1; j <= b.Ny; j++ {
		for _, v := range b.H.Data[b.Index(1, j):b.Index(b.Nx+1, j)] {
			t := sum + v
			if math.Abs(sum) >= math.Abs(v) {
				comp += (sum - t) + v
			} else {
				comp += (v - t) + sum
			}
			sum = t
		}
	}
	return sum + comp
}

// SRange returns the smallest and largest s over the interior; NaN for a
// basin that fails Validate's shape checks.
func (b *Basin) SRange() (lo, hi float64) {
	if b.checkShape() != nil {
		return math.NaN(), math.NaN()
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for j := 1; j <= b.Ny; j++ {
		for _, v := range b.S.Data[b.Index(1, j):b.Index(b.Nx+1, j)] {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi
}

// InflowRate returns the rate at which the boundary inflow changes Mass:
// Σ Rate/Δx over the west and east faces plus Σ Rate/Δy over the south and
// north faces. It is NaN for a nil basin.
func (b *Basin) InflowRate() float64 {
	if b == nil {
		return math.NaN()
	}
	var r float64
	for _, in := range b.Bound.West {
		r += in.Rate / b.P.Dx
	}
	for _, in := range b.Bound.East {
		r += in.Rate / b.P.Dx
	}
	for _, in := range b.Bound.South {
		r += in.Rate / b.P.Dy
	}
	for _, in := range b.Bound.North {
		r += in.Rate / b.P.Dy
	}
	return r
}

func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("sediment: %s = %g must be positive and finite: %w", name, v, ErrInput)
	}
	return nil
}

// CheckParams returns an error wrapping ErrInput unless every parameter is
// positive and finite.
func (p Params) CheckParams() error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"Δx", p.Dx}, {"Δy", p.Dy}, {"Δt", p.Dt}, {"Cs", p.Cs}, {"Cm", p.Cm}, {"A", p.A}} {
		if err := positive(c.name, c.v); err != nil {
			return err
		}
	}
	return nil
}

// checkShape returns an error unless the basin has its four fields, each
// of the padded size.
func (b *Basin) checkShape() error {
	if b == nil || b.Alpha == nil || b.Beta == nil || b.H == nil || b.S == nil {
		return fmt.Errorf("sediment: basin without fields (use NewBasin): %w", ErrInput)
	}
	if b.Nx < 1 || b.Ny < 1 || (float64(b.Nx)+2)*(float64(b.Ny)+2) > lab.MaxPoints {
		return fmt.Errorf("sediment: mesh %d×%d needs at least one interior point per side and at most %d points with ghosts: %w: %w",
			b.Nx, b.Ny, int64(lab.MaxPoints), lab.ErrSize, ErrInput)
	}
	n := (b.Nx + 2) * (b.Ny + 2)
	for _, g := range []*lab.Grid2[float64]{b.Alpha, b.Beta, b.H, b.S} {
		if g.NX != b.Nx+2 || g.NY != b.Ny+2 || len(g.Data) != n {
			return fmt.Errorf("sediment: field of %d×%d points does not match the padded mesh %d×%d: %w: %w",
				g.NY, g.NX, b.Ny+2, b.Nx+2, lab.ErrMismatch, ErrInput)
		}
	}
	return nil
}

// validate checks the parameters, the interior fields and the boundary,
// then fills every ghost point.
func (b *Basin) validate() error {
	if err := b.checkShape(); err != nil {
		return err
	}
	if err := b.P.CheckParams(); err != nil {
		return err
	}
	errs := make([]error, b.Ny+2)
	parallelRows(1, b.Ny+1, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			errs[j] = b.checkRow(j)
			if errs[j] != nil {
				return
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := b.checkBoundLen(); err != nil {
		return err
	}
	for _, sd := range b.sides() {
		for k, in := range sd.in {
			if math.IsNaN(in.Rate) || math.IsInf(in.Rate, 0) {
				return fmt.Errorf("sediment: %s inflow %d has rate %g, which must be finite: %w", sd.name, k+1, in.Rate, ErrInput)
			}
			if !(in.Sand >= 0 && in.Sand <= 1) {
				return fmt.Errorf("sediment: %s inflow %d has sand share %g outside [0, 1]: %w", sd.name, k+1, in.Sand, ErrInput)
			}
		}
	}
	b.fillGhosts()
	b.fillGhostH(b.H)
	return nil
}

// checkRow checks the interior values of row j.
func (b *Basin) checkRow(j int) error {
	for i := 1; i <= b.Nx; i++ {
		k := b.Index(i, j)
		a, be, h, s := b.Alpha.Data[k], b.Beta.Data[k], b.H.Data[k], b.S.Data[k]
		switch {
		case !(a > 0) || math.IsInf(a, 0):
			return fmt.Errorf("sediment: α(%d, %d) = %g must be positive and finite: %w", i, j, a, ErrInput)
		case !(be > 0) || math.IsInf(be, 0):
			return fmt.Errorf("sediment: β(%d, %d) = %g must be positive and finite: %w", i, j, be, ErrInput)
		case math.IsNaN(h) || math.IsInf(h, 0):
			return fmt.Errorf("sediment: h(%d, %d) = %g must be finite: %w", i, j, h, ErrInput)
		case !(s >= 0 && s <= 1):
			return fmt.Errorf("sediment: s(%d, %d) = %g must lie in [0, 1]: %w", i, j, s, ErrInput)
		}
	}
	return nil
}

// parallelRows calls f on consecutive bands of the rows lo ≤ j < hi, one
// band per core, and waits for all of them.
func parallelRows(lo, hi int, f func(lo, hi int)) {
	n := hi - lo
	threads := max(1, min(runtime.GOMAXPROCS(0), n))
	var wg sync.WaitGroup
	for t := range threads {
		a, z := lo+n*t/threads, lo+n*(t+1)/threads
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(a, z)
		}()
	}
	wg.Wait()
}

// edge describes one boundary face: the ghost point, its interior
// neighbour, the inflow and the spacing across the face.
type edge struct {
	ghost, inner int
	in           Inflow
	d            float64
}

// edges calls f for every boundary face in a fixed order: west, east,
// south, north.
func (b *Basin) edges(f func(e edge)) {
	get := func(in []Inflow, k int) Inflow {
		if in == nil {
			return Inflow{}
		}
		return in[k]
	}
	for j := 1; j <= b.Ny; j++ {
		f(edge{b.Index(0, j), b.Index(1, j), get(b.Bound.West, j-1), b.P.Dx})
		f(edge{b.Index(b.Nx+1, j), b.Index(b.Nx, j), get(b.Bound.East, j-1), b.P.Dx})
	}
	for i := 1; i <= b.Nx; i++ {
		f(edge{b.Index(i, 0), b.Index(i, 1), get(b.Bound.South, i-1), b.P.Dy})
		f(edge{b.Index(i, b.Ny+1), b.Index(i, b.Ny), get(b.Bound.North, i-1), b.P.Dy})
	}
}

// fillGhosts sets the ghost α, β and s, which do not change in time: α and
// β copy the interior neighbour; s copies it where no sediment enters and
// elsewhere takes the value whose sand share σ is the inflow's. Corners,
// which the five-point stencil never reads, copy the diagonal neighbour.
func (b *Basin) fillGhosts() {
	al, be, s := b.Alpha.Data, b.Beta.Data, b.S.Data
	ics, icm := 1/b.P.Cs, 1/b.P.Cm
	b.edges(func(e edge) {
		al[e.ghost], be[e.ghost] = al[e.inner], be[e.inner]
		s[e.ghost] = s[e.inner]
		if e.in.Rate > 0 {
			// σ = (α s/Cs) / (α s/Cs + β (1−s)/Cm) = Sand, solved for s.
			sand := e.in.Sand
			s[e.ghost] = sand * be[e.inner] * icm / ((1-sand)*al[e.inner]*ics + sand*be[e.inner]*icm)
		}
	})
	nx, ny := b.Nx, b.Ny
	for _, c := range [][4]int{{0, 0, 1, 1}, {nx + 1, 0, nx, 1}, {0, ny + 1, 1, ny}, {nx + 1, ny + 1, nx, ny}} {
		g, in := b.Index(c[0], c[1]), b.Index(c[2], c[3])
		for _, f := range []*lab.Grid2[float64]{b.Alpha, b.Beta, b.H, b.S} {
			f.Data[g] = f.Data[in]
		}
	}
}

// sides are the four boundaries with the number of faces each has.
func (b *Basin) sides() []struct {
	name string
	in   []Inflow
	n    int
} {
	return []struct {
		name string
		in   []Inflow
		n    int
	}{{"west", b.Bound.West, b.Ny}, {"east", b.Bound.East, b.Ny}, {"south", b.Bound.South, b.Nx}, {"north", b.Bound.North, b.Nx}}
}

// checkBoundLen returns an error wrapping ErrInput unless each boundary is
// nil (zero flux) or has one inflow per face: what the ghost points need
// not to read past a boundary that changed since Prepare.
func (b *Basin) checkBoundLen() error {
	for _, sd := range b.sides() {
		if sd.in != nil && len(sd.in) != sd.n {
			return fmt.Errorf("sediment: %s boundary has %d inflows for %d faces: %w", sd.name, len(sd.in), sd.n, ErrInput)
		}
	}
	return nil
}

// FaceCoeff returns the coefficient of eq. 3 on the face between points k
// and n, flat indices of the padded fields: (α_k s_k + α_n s_n)/(2Cs) +
// (β_k(1−s_k) + β_n(1−s_n))/(2Cm). It is NaN for an index outside the
// fields or a basin without them.
func (b *Basin) FaceCoeff(k, n int) float64 {
	if b.checkShape() != nil || k < 0 || n < 0 || k >= len(b.S.Data) || n >= len(b.S.Data) {
		return math.NaN()
	}
	return b.faceCoeff(k, n)
}

// faceCoeff is FaceCoeff on checked indices.
func (b *Basin) faceCoeff(k, n int) float64 {
	al, be, s := b.Alpha.Data, b.Beta.Data, b.S.Data
	return (al[k]*s[k]+al[n]*s[n])*(0.5/b.P.Cs) + (be[k]*(1-s[k])+be[n]*(1-s[n]))*(0.5/b.P.Cm)
}

// FillGhostH sets the ghost points of h, a padded field of this basin, so
// that the flux across every boundary face is the prescribed one:
// h_ghost = h_edge + Rate·Δ/K with K the face coefficient at the current s,
// and h_ghost = h_edge where Rate is zero. Step calls it before every step.
// It returns an error wrapping ErrInput, and changes nothing, for a field
// not of the basin's mesh or a boundary without one inflow per face.
func (b *Basin) FillGhostH(h *lab.Grid2[float64]) error {
	if err := b.checkShape(); err != nil {
		return err
	}
	if err := b.checkField("h", h); err != nil {
		return err
	}
	if err := b.checkBoundLen(); err != nil {
		return err
	}
	b.fillGhostH(h)
	return nil
}

// fillGhostH is FillGhostH on a checked basin and field.
func (b *Basin) fillGhostH(h *lab.Grid2[float64]) {
	b.edges(func(e edge) {
		if e.in.Rate == 0 {
			h.Data[e.ghost] = h.Data[e.inner]
			return
		}
		h.Data[e.ghost] = h.Data[e.inner] + e.in.Rate*e.d/b.faceCoeff(e.ghost, e.inner)
	})
}

// Limits are the stable time steps of the scheme for one state.
type Limits struct {
	// DMax is the largest diffusivity the state can reach, the maximum of
	// max(α/Cs, β/Cm) over the interior and the ghosts.
	DMax float64
	// DtH is the diffusion limit of eq. 3, 1/(2·DMax·(1/Δx² + 1/Δy²)). It
	// holds for the whole run while s stays in [0, 1].
	DtH float64
	// DtS is the sand-fraction limit on this state: the smallest
	// A/(out·max(α/Cs, β/Cm)/D) over the points that lose sediment, +Inf if
	// none does. It depends on the slopes of h.
	DtS float64
	// Dt is the smaller of DtH and DtS.
	Dt float64
}

// Limits checks the inputs, fills the ghost points and returns the stable
// time steps of the current state; P.Dt is not used.
func (b *Basin) Limits() (Limits, error) {
	if err := b.validate(); err != nil {
		return Limits{}, err
	}
	return b.limits(), nil
}

func (b *Basin) limits() Limits {
	al, be := b.Alpha.Data, b.Beta.Data
	ics, icm := 1/b.P.Cs, 1/b.P.Cm
	var l Limits
	for _, v := range al {
		l.DMax = max(l.DMax, v*ics)
	}
	for _, v := range be {
		l.DMax = max(l.DMax, v*icm)
	}
	rx, ry := 1/(b.P.Dx*b.P.Dx), 1/(b.P.Dy*b.P.Dy)
	l.DtH = 1 / (2 * l.DMax * (rx + ry))
	dts := make([]float64, b.Ny+2)
	parallelRows(1, b.Ny+1, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			dts[j] = b.rowDtS(j, rx, ry)
		}
	})
	l.DtS = math.Inf(1)
	for _, v := range dts[1 : b.Ny+1] {
		l.DtS = min(l.DtS, v)
	}
	l.Dt = min(l.DtH, l.DtS)
	return l
}

// rowDtS returns the smallest sand-fraction limit over the points of row
// j, +Inf if none of them loses sediment.
func (b *Basin) rowDtS(j int, rx, ry float64) float64 {
	al, be, h, s := b.Alpha.Data, b.Beta.Data, b.H.Data, b.S.Data
	ics, icm := 1/b.P.Cs, 1/b.P.Cm
	w := b.Pitch()
	dt := math.Inf(1)
	for i := 1; i <= b.Nx; i++ {
		c := b.Index(i, j)
		var out float64
		for _, nb := range [4]struct {
			n int
			r float64
		}{{c + 1, rx}, {c - 1, rx}, {c + w, ry}, {c - w, ry}} {
			if f := b.faceCoeff(c, nb.n) * (h[nb.n] - h[c]) * nb.r; f < 0 {
				out -= f
			}
		}
		if out == 0 {
			continue
		}
		d := al[c]*s[c]*ics + be[c]*(1-s[c])*icm
		var rho float64
		if s[c] > 0 {
			rho = al[c] * ics / d
		}
		if s[c] < 1 {
			rho = max(rho, be[c]*icm/d)
		}
		dt = min(dt, b.P.A/(out*rho))
	}
	return dt
}

// Prepare checks the inputs, fills the ghost points and returns an error
// wrapping ErrUnstable, giving the limit, if P.Dt exceeds the stable time
// step of the current state. It allocates the buffers of the next step.
func (b *Basin) Prepare() error {
	if b == nil {
		return fmt.Errorf("sediment: nil basin: %w", ErrInput)
	}
	b.prepared = false
	l, err := b.Limits()
	if err != nil {
		return err
	}
	return b.prepareWith(l)
}

// prepareWith finishes Prepare with the limits of the validated state.
func (b *Basin) prepareWith(l Limits) error {
	if b.P.Dt > l.Dt {
		return fmt.Errorf("sediment: Δt = %g exceeds the stable limit %g (diffusion limit 1/(2·Dmax·(1/Δx²+1/Δy²)) = %g with Dmax = %g; sand-fraction limit %g): %w",
			b.P.Dt, l.Dt, l.DtH, l.DMax, l.DtS, ErrUnstable)
	}
	if b.hNext == nil {
		b.hNext, b.sNext = b.H.Clone(), b.S.Clone()
	} else {
		copy(b.hNext.Data, b.H.Data)
		copy(b.sNext.Data, b.S.Data)
	}
	b.prepared = true
	return nil
}
