package nameguard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each way of deciding by a name is found once, on its line; registering
// a name, comparing other strings and a test file are not findings.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import "strings"

const fastStep = "fast"

func register(string) {}

func f(step, other string) int {
	register("fast")
	if step == "fast" {
		return 1
	}
	if fastStep != step {
		return 2
	}
	switch step {
	case "slow", "temporal":
		return 3
	}
	if strings.HasPrefix(step, "tempo") || strings.HasSuffix(step, "t") || strings.EqualFold(step, "FAST") {
		return 4
	}
	m := map[string]int{"temporal": 1, "other": 2}
	if other == "x" {
		return m[step]
	}
	return 0
}
`
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "p.go"), []byte(src), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "p_test.go"), []byte("package p\n\nvar _ = \"fast\" == \"fast\"\n"), 0o644))
	fs, err := Find(dir, []string{"fast", "temporal"})
	require.NoError(t, err)
	var got []string
	for _, f := range fs {
		got = append(got, f.How+" "+f.Name)
		assert.Equal(t, filepath.Join(dir, "sub", "p.go"), f.Pos.Filename)
	}
	assert.Equal(t, []string{"== fast", "!= fast", "switch temporal", "strings.HasPrefix tempo", "strings.EqualFold FAST", "map key temporal"}, got)
	assert.Equal(t, []int{11, 14, 18, 21, 21, 24}, lines(fs))
}

func lines(fs []Finding) []int {
	var out []int
	for _, f := range fs {
		out = append(out, f.Pos.Line)
	}
	return out
}
