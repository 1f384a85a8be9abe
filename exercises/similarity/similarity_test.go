package similarity

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// program writes a random Go function of n statements, named by prefix.
func program(rng *rand.Rand, prefix string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func %sRun(%sa, %sb []float64) float64 {\n\t%ss := 0.0\n", prefix, prefix, prefix, prefix)
	ops := []string{"+", "-", "*"}
	for i := range n {
		fmt.Fprintf(&b, "\tfor %si := range %sa { %ss %s= %sa[%si] %s %d*%sb[%si] }\n", prefix, prefix, prefix, ops[rng.IntN(3)], prefix, prefix, ops[rng.IntN(3)], i+rng.IntN(7), prefix, prefix)
	}
	fmt.Fprintf(&b, "\treturn %ss\n}\n", prefix)
	return b.String()
}

func TestCompareFlagsRenamedCopiesOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
	stub := Source{Text: "package p\n\nimport \"errors\"\n\nvar errNotImplemented = errors.New(\"not implemented\")\n", Go: true}
	orig := program(rng, "v", 12)
	// The copy: every name changed (v → q), tabs to spaces, blank lines.
	cp := strings.NewReplacer("\t", "    ", "\n", "\n\n").Replace(strings.ReplaceAll(orig, "v", "q"))
	code := map[string]Source{
		"ann":  {Text: stub.Text + orig, Go: true},
		"ben":  {Text: stub.Text + cp, Go: true},
		"cat":  {Text: stub.Text + program(rng, "w", 12), Go: true},
		"dan":  {Text: stub.Text + program(rng, "z", 12), Go: true},
		"stub": stub,
	}
	pairs, skipped := Compare("01_sine", code, stub, 0.8)
	require.Len(t, pairs, 1, "%+v", pairs)
	assert.Equal(t, Pair{Exercise: "01_sine", A: "ann", B: "ben", Score: 1, Shared: pairs[0].Of, Of: pairs[0].Of}, pairs[0])
	assert.Equal(t, []string{"stub"}, skipped, "the stub alone is no code of one's own")

	// Every pair has a score from 0 to 1, the share of the smaller set.
	all, _ := Compare("01_sine", code, stub, 0)
	assert.Len(t, all, 6)
	for _, p := range all {
		assert.True(t, p.Score >= 0 && p.Score <= 1 && p.Shared <= p.Of, "%+v", p)
		assert.InDelta(t, float64(p.Shared)/float64(p.Of), p.Score, 1e-12)
	}
}
