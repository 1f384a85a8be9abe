package lab

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEditDistance(t *testing.T) {
	// The textbook pairs, and the distance's defining properties on random
	// words: zero only to itself, symmetric, at most the longer length,
	// one for a single insertion.
	assert.Equal(t, 3, editDistance("kitten", "sitting"))
	assert.Equal(t, 2, editDistance("flaw", "lawn"))
	assert.Equal(t, 0, editDistance("", ""))
	assert.Equal(t, 5, editDistance("", "tiled"))
	assert.Equal(t, 1, editDistance("×", "x"), "runes, not bytes")
	r := rand.New(rand.NewPCG(7, 11))
	word := func() string {
		b := make([]byte, r.IntN(9))
		for i := range b {
			b[i] = byte('a' + r.IntN(4))
		}
		return string(b)
	}
	for range 200 {
		a, b := word(), word()
		d := editDistance(a, b)
		assert.Equal(t, d, editDistance(b, a))
		assert.Equal(t, a == b, d == 0)
		assert.LessOrEqual(t, d, max(len(a), len(b)))
		assert.GreaterOrEqual(t, d, max(len(a)-len(b), len(b)-len(a)))
		at := r.IntN(len(a) + 1)
		assert.Equal(t, 1, editDistance(a, a[:at]+"z"+a[at:]), "one insertion into %q", a)
	}
}

func TestSuggestNearMisses(t *testing.T) {
	names := StepNames()
	for _, s := range Steps3() {
		// Each 3D step's name with one letter doubled, one dropped and in
		// capitals is a near miss of that name.
		n := s.Name
		for _, typo := range []string{n + n[len(n)-1:], n[:len(n)-1], n[1:]} {
			assert.Contains(t, Suggest(typo, names), n, "typo %q", typo)
		}
		assert.Empty(t, Suggest(n, names), "an exact name needs no suggestion")
	}
	assert.Equal(t, ` (did you mean "tiled"?)`, DidYouMean("tiledd", []string{"tiled", "basic", "coarsened"}))
	assert.Equal(t, ` (did you mean "ab" or "ba"?)`, DidYouMean("aa", []string{"ab", "ba", "zzzz"}))
	assert.Equal(t, ` (did you mean "register_tiled"?)`, DidYouMean("register", []string{"register_tiled", "tiled"}), "a prefix")
	assert.Empty(t, DidYouMean("quantum_chromodynamics", names))
	assert.Empty(t, DidYouMean("", names))
}

// Every lookup of a step or a kernel by name suggests the nearest ones,
// so that no caller has to add it.
func TestLookupsSuggestTheNearestName(t *testing.T) {
	_, err := LookupStep("tiledd")
	assert.ErrorIs(t, err, ErrUnknown)
	assert.ErrorContains(t, err, `did you mean "tiled"?`)
	_, err = LookupStep3("coarsend")
	assert.ErrorIs(t, err, ErrUnknown)
	assert.ErrorContains(t, err, `did you mean "coarsened"?`)
	_, _, err = LookupKernel("tiled_no_barier")
	assert.ErrorIs(t, err, ErrUnknown)
	assert.ErrorContains(t, err, `did you mean "tiled_no_barrier"?`)
	_, err = LookupStep("zzzzzzzzzz")
	assert.NotContains(t, err.Error(), "did you mean", "no suggestion far from every name")
}
