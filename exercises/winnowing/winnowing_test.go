package winnowing

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestWinnowGuarantee: two texts that share a run of k+w−1 tokens share a
// fingerprint, whatever surrounds the run and however it is named.
func TestWinnowGuarantee(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	words := []string{"a", "b", "c", "d", "+", "-", "*", "(", ")", "=", ";", "1", "2", "x", "y"}
	text := func(n int) string {
		s := ""
		for range n {
			s += words[rng.IntN(len(words))] + " "
		}
		return s
	}
	const k, w = 6, 4
	for range 200 {
		shared := text(k + w - 1)
		a := CTokens(text(rng.IntN(40)) + " @ " + shared + " @ " + text(rng.IntN(40)))
		b := CTokens(text(rng.IntN(40)) + " # " + shared + " # " + text(rng.IntN(40)))
		pa, pb := PrintSet(Winnow(a, k, w)), PrintSet(Winnow(b, k, w))
		common := false
		for h := range pa {
			common = common || pb[h]
		}
		assert.True(t, common, "a shared run of %d tokens: %q", k+w-1, shared)
	}
	assert.Nil(t, Winnow(CTokens("a b"), 6, 4), "shorter than a k-gram")
	assert.Nil(t, Winnow(CTokens("a b c"), 0, 4), "no k-gram of 0 tokens")
}

func TestTokensNormaliseNamesAndLayout(t *testing.T) {
	a := GoTokens("func f(x int) int {\n\treturn x*x + 1 // square\n}")
	b := GoTokens("func   g(y int) int { return y*y + 1 }")
	assert.Equal(t, KGramHash(a), KGramHash(b), "names, comments and layout do not count")
	c := GoTokens("func g(y int) int { return y*y + 2 }")
	assert.NotEqual(t, KGramHash(a), KGramHash(c), "numbers count")
	assert.Equal(t, KGramHash(CTokens("out[i] = c0*in[i];")), KGramHash(CTokens("dst[k] = w*src[k];")))
}
