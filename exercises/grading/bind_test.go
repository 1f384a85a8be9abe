package grading

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type point struct{ X, Y int }

type bindFuncs struct {
	Scale   func(dst []float64, k float64) error
	Mid     func(a, b point, name string) (point, string, error)
	Wrap    func(err error, what string) error
	Nothing func()
}

var errLimitForTest = errors.New("limit")

// recoverFailure runs f and returns the *ChildFailure it panicked with.
func recoverFailure(f func()) (failure *ChildFailure) {
	defer func() {
		if r := recover(); r != nil {
			failure, _ = r.(*ChildFailure)
		}
	}()
	f()
	return nil
}

func TestBoundFunctionsCrossTheChannel(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	known := KnownErrors{"limit": errLimitForTest}
	child := bindFuncs{
		Scale: func(dst []float64, k float64) error {
			if k == 0 {
				return fmt.Errorf("scale by 0: %w", errLimitForTest)
			}
			for i := range dst {
				dst[i] *= k
			}
			return nil
		},
		Mid: func(a, b point, name string) (point, string, error) {
			return point{(a.X + b.X) / 2, (a.Y + b.Y) / 2}, name + "!", nil
		},
		Wrap: func(err error, what string) error {
			if err == nil {
				return nil
			}
			return fmt.Errorf("%s: %w", what, err)
		},
		Nothing: func() {},
	}
	var remote bindFuncs
	require.NoError(t, RemoteFuncs(&remote, pair(t, ServeFuncs(child, known)), known))

	n := 1 + rng.IntN(50)
	xs := make([]float64, n)
	want := make([]float64, n)
	k := 1 + rng.Float64()
	for i := range xs {
		xs[i] = rng.NormFloat64()
		want[i] = xs[i] * k
	}
	require.NoError(t, remote.Scale(xs, k))
	assert.Equal(t, want, xs, "the child's changes reach the caller's slice")

	err := remote.Scale(xs, 0)
	require.ErrorIs(t, err, errLimitForTest)
	assert.Equal(t, "scale by 0: limit", err.Error())

	a := point{rng.IntN(1000), rng.IntN(1000)}
	b := point{rng.IntN(1000), rng.IntN(1000)}
	p, s, err := remote.Mid(a, b, "m")
	require.NoError(t, err)
	assert.Equal(t, point{(a.X + b.X) / 2, (a.Y + b.Y) / 2}, p)
	assert.Equal(t, "m!", s)

	text := fmt.Sprintf("launch %d: %v", rng.IntN(100), errLimitForTest)
	err = remote.Wrap(fmt.Errorf("launch: %w", errors.New(text)), "tiled")
	require.Error(t, err)
	assert.Equal(t, "tiled: launch: "+text, err.Error())
	err = remote.Wrap(fmt.Errorf("x: %w", errLimitForTest), "tiled")
	assert.ErrorIs(t, err, errLimitForTest, "a known error passed in comes back known")
	assert.NoError(t, remote.Wrap(nil, "tiled"))
	remote.Nothing()
}

func TestStubFuncsAreNotImplemented(t *testing.T) {
	s, err := StubFuncs(bindFuncs{})
	require.NoError(t, err)
	f := s.(bindFuncs)
	p, name, err := f.Mid(point{1, 2}, point{3, 4}, "x")
	assert.ErrorIs(t, err, ErrNotImplemented)
	assert.Zero(t, p)
	assert.Empty(t, name)
	assert.ErrorIs(t, f.Scale(nil, 1), ErrNotImplemented)
	f.Nothing()
}

// TestABoundReplyOfTheWrongShapeBreaksTheChannel: a child that answers
// with other types, or an unknown method, fails the call as a broken
// channel, never with a value the checks would read.
func TestABoundReplyOfTheWrongShapeBreaksTheChannel(t *testing.T) {
	liar := func(method string, b []byte) ([]byte, error) {
		return Encode(struct{ R0 string }{"not a point"})
	}
	var remote bindFuncs
	require.NoError(t, RemoteFuncs(&remote, pair(t, liar), nil))
	f := recoverFailure(func() { _, _, _ = remote.Mid(point{}, point{}, "") })
	require.NotNil(t, f)
	assert.Equal(t, Crashed, f.Status)
	assert.Contains(t, f.Message, "Mid")

	h := ServeFuncs(bindFuncs{}, nil)
	_, err := h("Mid", nil)
	assert.ErrorContains(t, err, "has no function")
	_, err = h("Missing", nil)
	assert.ErrorContains(t, err, `no method "Missing"`)
	h = ServeFuncs(bindFuncs{Scale: func([]float64, float64) error { return nil }}, nil)
	_, err = h("Scale", []byte("garbage"))
	assert.ErrorIs(t, err, ErrMalformed)
}

func TestBindRefusesWhatCannotCross(t *testing.T) {
	type withFunc struct {
		F func(func(float64) float64) error
	}
	type withChan struct{ F func() chan int }
	type hidden struct{ x int }
	type withHidden struct{ F func(hidden) error }
	type notFunc struct{ N int }
	for _, v := range []any{withFunc{}, withChan{}, withHidden{}, notFunc{}, 3} {
		assert.Error(t, CheckFuncs(v), "%T", v)
		_, err := StubFuncs(v)
		assert.Error(t, err, "%T", v)
		_, err = ServeFuncs(v, nil)("F", nil)
		assert.Error(t, err, "%T", v)
	}
	assert.Error(t, CheckFuncs(nil))
	assert.Error(t, RemoteFuncs(bindFuncs{}, nil, nil), "not a pointer")
}

// TestABoundReplyOfRandomBytesBreaksTheChannel: whatever bytes a child
// sends as a result, the call ends as a broken channel or with values of
// the results' types, never with a panic of another kind.
func TestABoundReplyOfRandomBytesBreaksTheChannel(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 10))
	for trial := range 200 {
		b := make([]byte, rng.IntN(64))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		if trial%2 == 0 && len(b) > 0 {
			// A valid gob of another shape, cut at random.
			good, err := Encode(struct {
				R0 point
				R1 string
				R2 *WireError
			}{point{1, 2}, "x", &WireError{Msg: "m", Kinds: []string{"nope"}}})
			require.NoError(t, err)
			b = good[:rng.IntN(len(good)+1)]
		}
		var remote bindFuncs
		require.NoError(t, RemoteFuncs(&remote, pair(t, func(string, []byte) ([]byte, error) { return b, nil }), nil))
		var other any
		func() {
			defer func() { other = recover() }()
			_, _, _ = remote.Mid(point{}, point{}, "")
		}()
		if other != nil {
			_, ok := other.(*ChildFailure)
			assert.True(t, ok, "trial %d: %v", trial, other)
		}
	}
}

// field is a grid as the exercises pass it: by pointer, written in place.
type field struct {
	NY, NX int
	Data   []float64
}

type pointerFuncs struct {
	// Smooth writes into dst the mean of each point of src and its right
	// neighbour, and says whether dst and src were one grid.
	Smooth func(dst, src *field) (bool, error)
	// Twice returns a new grid of twice g's values, and doubles g's NX.
	Twice func(g *field) (*field, error)
}

// TestPointersCrossTheChannelAsTheyWereGiven: a grid passed by pointer is
// written in place, the same grid passed twice reaches the child as one
// pointer, nil stays nil, and a returned pointer is a value of its own.
func TestPointersCrossTheChannelAsTheyWereGiven(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	smooth := func(dst, src *field) (bool, error) {
		if dst == nil || src == nil {
			return false, errors.New("nil grid")
		}
		same := dst == src
		in := append([]float64(nil), src.Data...)
		for i := range dst.Data {
			dst.Data[i] = (in[i] + in[(i+1)%len(in)]) / 2
		}
		return same, nil
	}
	child := pointerFuncs{
		Smooth: smooth,
		Twice: func(g *field) (*field, error) {
			if g == nil {
				return nil, errors.New("nil grid")
			}
			out := &field{NY: g.NY, NX: g.NX, Data: make([]float64, len(g.Data))}
			for i, v := range g.Data {
				out.Data[i] = 2 * v
			}
			g.NX *= 2
			return out, nil
		},
	}
	var remote pointerFuncs
	require.NoError(t, RemoteFuncs(&remote, pair(t, ServeFuncs(child, nil)), nil))

	grid := func() *field {
		ny, nx := 1+rng.IntN(7), 2+rng.IntN(9)
		g := &field{NY: ny, NX: nx, Data: make([]float64, ny*nx)}
		for i := range g.Data {
			g.Data[i] = rng.NormFloat64()
		}
		return g
	}
	clone := func(g *field) *field { return &field{NY: g.NY, NX: g.NX, Data: append([]float64(nil), g.Data...)} }

	// Two grids: dst is written, src is not, and dst keeps its array.
	src := grid()
	dst := &field{NY: src.NY, NX: src.NX, Data: make([]float64, len(src.Data))}
	wantDst, wantSrc := clone(dst), clone(src)
	wantSame, err := smooth(wantDst, wantSrc)
	require.NoError(t, err)
	array := &dst.Data[0]
	same, err := remote.Smooth(dst, src)
	require.NoError(t, err)
	assert.Equal(t, wantSame, same)
	assert.False(t, same)
	assert.Equal(t, wantDst, dst)
	assert.Equal(t, wantSrc, src)
	assert.Same(t, array, &dst.Data[0], "the caller's grid keeps its array")

	// One grid twice: the child sees one pointer, and writes it in place.
	g := grid()
	want := clone(g)
	wantSame, err = smooth(want, want)
	require.NoError(t, err)
	same, err = remote.Smooth(g, g)
	require.NoError(t, err)
	assert.Equal(t, wantSame, same)
	assert.True(t, same, "the same pointer twice reaches the child as one")
	assert.Equal(t, want, g)

	// Nil crosses as nil.
	_, err = remote.Smooth(nil, grid())
	assert.EqualError(t, err, "nil grid")
	out, err := remote.Twice(nil)
	assert.Nil(t, out)
	assert.EqualError(t, err, "nil grid")

	// A returned pointer is a value of its own; the argument's field
	// written in the child reaches the caller.
	g = grid()
	nx := g.NX
	want = clone(g)
	for i := range want.Data {
		want.Data[i] *= 2
	}
	out, err = remote.Twice(g)
	require.NoError(t, err)
	assert.Equal(t, want, out)
	assert.Equal(t, 2*nx, g.NX)
	assert.NotSame(t, g, out)
}

// TestAForgedSamePointerIsMalformed: a call whose second pointer claims
// to be an argument that is not a pointer of its type, or one after it,
// is refused by the child's handler, never a panic.
func TestAForgedSamePointerIsMalformed(t *testing.T) {
	type smoothOnly struct {
		Smooth func(dst, src *field) (bool, error)
	}
	h := ServeFuncs(smoothOnly{Smooth: func(dst, src *field) (bool, error) { return dst == src, nil }}, nil)
	sig, err := newSignature(reflect.TypeFor[func(dst, src *field) (bool, error)]())
	require.NoError(t, err)
	for _, same := range []int{1, 2, 3, -1, 1 << 40} {
		args := reflect.New(sig.args).Elem()
		args.Field(0).Field(0).SetBool(true) // dst is nil: nothing to be the same as
		args.Field(1).Field(1).SetInt(int64(same))
		if same == 2 { // dst is a grid, and src claims to be itself
			args.Field(0).Field(0).SetBool(false)
		}
		b, err := Encode(args.Interface())
		require.NoError(t, err)
		_, err = h("Smooth", b)
		assert.ErrorIs(t, err, ErrMalformed, "Same = %d", same)
	}
}
