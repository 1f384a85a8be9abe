package grader

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// honestCode writes a student's own code: a function of statements drawn
// at random from many shapes, so that two students share no long run of
// tokens by chance.
func honestCode(r *rand.Rand, name string) string {
	shapes := []string{
		"x := a[i] * %d.5",
		"for j := 0; j < n; j++ { s += a[j] * %d }",
		"if x > y { y = x } else { x = y - %d }",
		"out[i] = math.Sin(x) + float64(%d)",
		"s = s*0.5 + float64(k%%%d)",
		"switch k %% %d { case 0: x++; case 1: y--; default: z = x }",
		"k += %d",
		"z = (x - y) / (%d + z)",
		"a[i], a[j%%%d] = a[j%%%d], a[i]",
		"for t := range %d { if a[t] < 0 { a[t] = -a[t] } }",
		"y = math.Max(y, a[(i+%d)%%n])",
		"if z != 0 && s > %d { s /= z }",
		"c := []float64{x, y, float64(%d)}; s += c[k%%3]",
		"n = min(n, %d+len(a))",
		"x, y = y, x*%d",
		"for k > %d { k /= 2; s -= 1 }",
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nfunc %s(a, out []float64, n, i, j, k int, s float64) float64 {\n\tvar x, y, z float64\n", name)
	for range 28 {
		sh := shapes[r.IntN(len(shapes))]
		args := make([]any, strings.Count(sh, "%d"))
		for i := range args {
			args[i] = 2 + r.IntN(7)
		}
		fmt.Fprintf(&b, "\t"+sh+"\n", args...)
	}
	b.WriteString("\treturn s + x + y + z\n}\n")
	return b.String()
}

// disguise renames a copy's names and spreads its statements over other
// lines, as a copier would.
func disguise(src string, suffix string) string {
	src = regexp.MustCompile(`\b(x|y|z|s|k|a|i|j|n|out|c|t)\b`).ReplaceAllString(src, "${1}"+suffix)
	src = strings.ReplaceAll(src, "\t", "    ")
	return "// my own work\n" + strings.ReplaceAll(src, "{ ", "{\n        ")
}

// similarityClass writes a class of n hand-ins of 01_sine into a new
// folder: five hand the stub in untouched, three form a ring (one
// student's code and two disguised copies of it), and the others write
// their own code; each hand-in is the stub with the student's code added.
// It returns the folder and the ring.
func similarityClass(t *testing.T, root string, n int) (string, []string) {
	e := findExercise(t, "01_sine")
	stub := stubOf(root, e).Text
	class := t.TempDir()
	write := func(student, code string) {
		dir := filepath.Join(class, student, e.ID)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Files[0]), []byte(stub+code), 0o644))
	}
	r := rand.New(rand.NewPCG(uint64(n), 7))
	ring := []string{"ring-a", "ring-b", "ring-c"}
	orig := honestCode(r, "helper")
	write(ring[0], orig)
	write(ring[1], disguise(orig, "1"))
	write(ring[2], disguise(orig, "Two"))
	for i := range 5 {
		write(fmt.Sprintf("stub-%02d", i), "")
	}
	for i := range n - 8 {
		write(fmt.Sprintf("honest-%03d", i), honestCode(r, "helper"))
	}
	return class, ring
}

// `grade similarity` on a class of 30 and of 300, each with one ring of
// three copiers, five stubs handed in untouched, and honest students:
// the ring is the one cluster (its three pairs flagged), no honest
// student or stub is flagged, the stubs are named as not compared, and
// the summary gives the clusters, not a list of pairs.
func TestSimilarityClusterOfARing(t *testing.T) {
	root := repoRoot(t)
	for _, n := range []int{30, 300} {
		class, ring := similarityClass(t, root, n)
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, Run([]string{"similarity", "-C", root, class, "01"}, &stdout, &stderr), stderr.String())
		rows, err := csv.NewReader(&stdout).ReadAll()
		require.NoError(t, err)
		var flagged []string
		for _, row := range rows[1:] {
			flagged = append(flagged, row[1]+"~"+row[2])
		}
		assert.ElementsMatch(t, []string{ring[0] + "~" + ring[1], ring[0] + "~" + ring[2], ring[1] + "~" + ring[2]}, flagged, "n=%d", n)
		msg := stderr.String()
		assert.Contains(t, msg, "grade similarity: 3 pairs at or above 0.80 (the code handed out discounted), in 1 cluster of copies:\n", "n=%d", n)
		assert.Regexp(t, `\n  01_sine: 3 students \(3 pairs, highest [01]\.\d{3}\): `+strings.Join(ring, ", ")+"\n", msg, "n=%d", n)
		assert.Contains(t, msg, fmt.Sprintf("01_sine: 5 of %d hand-ins not compared: too little code of their own", n), "n=%d: the stubs", n)
		assert.NotContains(t, msg, "honest-", "n=%d", n)
		assert.LessOrEqual(t, strings.Count(msg, "\n"), 4, "n=%d: a summary, not a list: %s", n, msg)
	}
}
