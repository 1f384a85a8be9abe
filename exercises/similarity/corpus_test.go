package similarity

import (
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The committed corpus, testdata/go and testdata/cuda: a stub and honest
// solutions of one exercise written independently, each in its own style.
// Each honest solution is copied by an obfuscation that keeps its meaning;
// the copies must be flagged, and no two honest solutions.

// goSemicolons writes Go source with every name of its own changed and
// every semicolon Go would insert written out, the statements of a block
// on one line.
func goSemicolons(src string) string {
	keep := map[string]bool{"Smooth": true, "fmt": true, "errors": true, "Errorf": true, "New": true, "len": true,
		"copy": true, "float64": true, "error": true, "nil": true, "smooth": true, "int": true}
	var s scanner.Scanner
	fset := token.NewFileSet()
	f := fset.AddFile("", fset.Base(), len(src))
	s.Init(f, []byte(src), nil, 0)
	var b strings.Builder
	for {
		_, tok, lit := s.Scan()
		switch {
		case tok == token.EOF:
			return b.String()
		case tok == token.SEMICOLON:
			b.WriteString("; ")
		case tok == token.IDENT && !keep[lit]:
			b.WriteString("r" + strings.ToUpper(lit[:1]) + lit[1:] + "X ")
		case lit != "":
			b.WriteString(lit + " ")
		default:
			b.WriteString(tok.String() + " ")
		}
		if tok == token.LBRACE || tok == token.RBRACE {
			b.WriteString("\n")
		}
	}
}

// cudaSplices writes CUDA source with every name of its own changed and
// a line splice inside every name of two letters or more.
func cudaSplices(src string) string {
	keep := map[string]bool{"extern": true, "__global__": true, "void": true, "const": true, "float": true, "int": true,
		"if": true, "for": true, "return": true, "define": true, "size_t": true, "threadIdx": true, "blockIdx": true,
		"blockDim": true, "gridDim": true, "x": true, "y": true, "smooth2d": true}
	var b strings.Builder
	for i := 0; i < len(src); {
		c := src[i]
		if c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z' {
			j := i
			for j < len(src) && (src[j] == '_' || src[j]|0x20 >= 'a' && src[j]|0x20 <= 'z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			w := src[i:j]
			if !keep[w] && (i == 0 || src[i-1] != '"') {
				w = "k" + w + "Q"
			}
			if len(w) >= 2 {
				w = w[:len(w)/2] + "\\\n" + w[len(w)/2:]
			}
			b.WriteString(w)
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func readCorpus(t *testing.T, dir, ext string) (stub string, honest map[string]string) {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*"+ext))
	require.NoError(t, err)
	honest = map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		name := strings.TrimSuffix(filepath.Base(f), ext)
		if name == "stub" {
			stub = string(b)
			continue
		}
		honest[name] = string(b)
	}
	require.NotEmpty(t, stub)
	require.GreaterOrEqual(t, len(honest), 3)
	return stub, honest
}

func TestPrecisionAndRecallOnTheCorpus(t *testing.T) {
	for _, c := range []struct {
		dir, ext string
		isGo     bool
		obf      func(string) string
	}{
		{"go", ".go", true, goSemicolons},
		{"cuda", ".cu", false, cudaSplices},
	} {
		stub, honest := readCorpus(t, c.dir, c.ext)
		code := map[string]Source{}
		copies := map[[3]string]bool{}
		for name, text := range honest {
			code[name] = Source{Text: text, Go: c.isGo}
			code[name+"_copy"] = Source{Text: c.obf(text), Go: c.isGo}
			copies[[3]string{c.dir, name, name + "_copy"}] = true
		}
		all, skipped := Compare(c.dir, code, Source{Text: stub, Go: c.isGo}, 0)
		assert.Empty(t, skipped, c.dir)
		flagged, _ := Compare(c.dir, code, Source{Text: stub, Go: c.isGo}, DefaultThreshold)
		for _, p := range all {
			t.Logf("%s %s–%s: %.3f (%d of %d)", c.dir, p.A, p.B, p.Score, p.Shared, p.Of)
			if copies[[3]string{c.dir, p.A, p.B}] {
				assert.GreaterOrEqual(t, p.Score, DefaultThreshold, "%s: %s's obfuscated copy", c.dir, p.A)
			}
		}
		precision, recall := Quality(flagged, copies)
		t.Logf("%s: %d honest solutions, %d obfuscated copies, %d pairs: precision %.2f, recall %.2f at %.2f",
			c.dir, len(honest), len(copies), len(all), precision, recall, DefaultThreshold)
		assert.Equal(t, 1.0, recall, "%s: every copy flagged", c.dir)
		assert.Equal(t, 1.0, precision, "%s: no honest pair flagged", c.dir)
	}
}

// Code many hand-ins share beyond the stub (an idiom of the class, a
// helper handed out in a lecture) is no evidence: a class of 30 that all
// share a long block, each with a little code of its own, has one pair
// flagged, the copy.
func TestCommonCodeIsNoEvidence(t *testing.T) {
	stub := Source{Text: "package p\n", Go: true}
	// One generator for the class: a fresh one a student, seeded by the
	// clock in a tight loop, can repeat a seed, and six lines of code of
	// their own left two honest students alike by chance often enough to
	// fail; twelve do not.
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	common := strings.Replace(program(rng, "c", 20), "cRun", "Common", 1)
	code := map[string]Source{}
	for i := range 30 {
		code[string(rune('a'+i/26))+string(rune('a'+i%26))] = Source{Text: stub.Text + common + program(rng, "s", 12), Go: true}
	}
	code["zz"] = Source{Text: code["ab"].Text, Go: true}
	pairs, _ := Compare("01_sine", code, stub, DefaultThreshold)
	require.Len(t, pairs, 1, "%+v", pairs)
	assert.Equal(t, [2]string{"ab", "zz"}, [2]string{pairs[0].A, pairs[0].B})
	assert.Equal(t, 10, CommonLimit(31))
	assert.Equal(t, 30, CommonLimit(300))
}

func TestClustersJoinRings(t *testing.T) {
	pairs := []Pair{
		{Exercise: "01", A: "ann", B: "ben", Score: 0.9},
		{Exercise: "01", A: "ben", B: "cat", Score: 0.95},
		{Exercise: "01", A: "dan", B: "eve", Score: 0.8},
		{Exercise: "02", A: "ann", B: "eve", Score: 1},
	}
	assert.Equal(t, []Cluster{
		{Exercise: "01", Students: []string{"ann", "ben", "cat"}, Pairs: 2, MaxScore: 0.95},
		{Exercise: "01", Students: []string{"dan", "eve"}, Pairs: 1, MaxScore: 0.8},
		{Exercise: "02", Students: []string{"ann", "eve"}, Pairs: 1, MaxScore: 1},
	}, Clusters(pairs))
	p, r := Quality(pairs, map[[3]string]bool{{"01", "ann", "ben"}: true, {"01", "x", "y"}: true})
	assert.Equal(t, [2]float64{1.0 / 4, 1.0 / 2}, [2]float64{p, r})
}

// newRNG returns a generator with a fresh seed.
func newRNG() *rand.Rand { return rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7)) }
