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

// The token streams are those of the language after its own reading: a
// Go copy with its semicolons written out, and a CUDA copy with a line
// splice inside every name, give the tokens of the original.
func TestTokensAfterTheLanguagesReading(t *testing.T) {
	text := func(ts []Token) (out []string) {
		for _, tk := range ts {
			out = append(out, tk.Text)
		}
		return out
	}
	goSrc := "package p\n\nfunc f(a []int) int {\n\ts := 0\n\tfor _, v := range a {\n\t\ts += v\n\t}\n\treturn s\n}\n"
	semis := "package p; func f(a []int) int { s := 0; for _, v := range a { s += v; }; return s; };"
	assert.Equal(t, text(GoTokens(goSrc)), text(GoTokens(semis)))
	cu := "__global__ void k(float* out, const float* in)\n{\n    out[threadIdx.x] = 2.0f * in[threadIdx.x];\n}\n"
	spliced := "__glo\\\nbal__ void k(fl\\\r\noat* o\\\rut, const float* in)\r{\r    out[thread\\\nIdx.x] = 2.0f * in[threadIdx.x];\r}\r"
	assert.Equal(t, text(CTokens(cu)), text(CTokens(spliced)))
	lines := func(ts []Token) (out []int) {
		for _, tk := range ts {
			out = append(out, tk.Line)
		}
		return out
	}
	assert.Equal(t, []int{1, 2, 3}, lines(CTokens("a\r\nb\rc")), "CR, CRLF and LF each end a line")
	assert.Equal(t, []int{1, 3}, lines(CTokens("a\\\nb\nc")), "a token after a splice keeps its first line")
}
