//go:build hidden

package checks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bugMistakes are the four mistakes of exercise 09, each as the text of the
// answer and the text of the mistake, line by line with the indentation
// dropped (the loop mistake moves a brace and so re-indents what follows).
var bugMistakes = map[string][][2]string{
	"bugHalo": {
		{"if IN_TILE_DIM < 5 {", "if IN_TILE_DIM < 3 {"},
		{"OUT_TILE_DIM := IN_TILE_DIM - 4", "OUT_TILE_DIM := IN_TILE_DIM - 2"},
	},
	"bugSwap": {
		{"c[9]*inCurr_s.Load(ty-2, tx)+c[10]*inCurr_s.Load(ty+2, tx)+", "c[9]*inCurr_s.Load(ty+2, tx)+c[10]*inCurr_s.Load(ty-2, tx)+"},
	},
	"bugLoop": {
		{"inNext2_s.Store(ty, tx, t.Load(in, ((i+2)*ny+j)*nx+k))\n}\nt.Sync()\nif i >= 2 && i < nz-2",
			"inNext2_s.Store(ty, tx, t.Load(in, ((i+2)*ny+j)*nx+k))\n}\n}\nt.Sync()\nif iStart >= 2 && iStart < nz-2"},
		{"t.Store(out, (i*ny+j)*nx+k,", "t.Store(out, (iStart*ny+j)*nx+k,"},
		{"if i-1 >= 0 {", "if iStart-1 >= 0 {"},
		{"\nif i+1 < nz {", "\nif iStart+1 < nz {"},
		{"\nif i+2 < nz {", "\nif iStart+2 < nz {"},
		{"}\n}\n}\n},\n}, nil", "}\n}\n},\n}, nil"},
	},
	"bugBarrier": {
		{"t.Sync()\nif column {", "if column {"},
	},
}

// unindented is lines with the indentation dropped, and with a leading
// comment marker too when stub.
func unindented(lines []string, stub bool) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if stub {
			l = strings.TrimSpace(strings.TrimPrefix(l, "//"))
		}
		out[i] = l
	}
	return strings.Join(out, "\n")
}

// between is the lines of src strictly between the first line that starts
// (indentation dropped) with from and the next one that starts with to, or,
// for a to of "}", the next line that is "}", the end of a function.
func between(t *testing.T, src, from, to string) []string {
	t.Helper()
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), from) {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == to || to != "}" && strings.HasPrefix(strings.TrimSpace(lines[j]), to) {
				return lines[i+1 : j]
			}
		}
	}
	require.Failf(t, "no such lines", "%q to %q", from, to)
	return nil
}

// withMistake is the answer with one mistake's substitutions, each of
// which must apply exactly once.
func withMistake(t *testing.T, text, name string) string {
	t.Helper()
	for _, s := range bugMistakes[name] {
		require.Equal(t, 1, strings.Count(text, s[0]), "%s: %q", name, s[0])
		text = strings.Replace(text, s[0], s[1], 1)
	}
	return text
}

// The single-mistake kernels are exercise 09's answer with one mistake
// each, and bugAll is its stub: derived here from fix.go's text, so that
// the copies cannot drift from the exercise.
func TestBugKernelsAreTheExerciseWithOneMistake(t *testing.T) {
	fix, err := os.ReadFile(filepath.Join("..", "09_find_the_bug", "fix.go"))
	require.NoError(t, err)
	kernels, err := os.ReadFile("star_bug_kernels_test.go")
	require.NoError(t, err)
	prelude := unindented(between(t, string(fix), "func Coarsened(", "// BEGIN SOLUTION"), false)
	answer := unindented(between(t, string(fix), "// BEGIN SOLUTION", "// END SOLUTION"), false)
	stub := unindented(between(t, string(fix), "// BEGIN STUB", "// END STUB"), true)

	all := answer
	for _, name := range []string{"bugHalo", "bugSwap", "bugLoop", "bugBarrier"} {
		all = withMistake(t, all, name)
	}
	require.Equal(t, stub, all, "the four mistakes are not exactly what the stub has")

	for _, name := range []string{"bugHalo", "bugSwap", "bugLoop", "bugBarrier", "bugAll"} {
		body := between(t, string(kernels), "func "+name+"(", "}")
		want := stub
		if name != "bugAll" {
			want = withMistake(t, answer, name)
		}
		require.Equal(t, prelude+"\n"+want, unindented(body, false), name)
	}
}
