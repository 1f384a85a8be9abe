package handin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/internal/testlimit"
)

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return b
}

func TestReadRegularReadsAFileUpToItsLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	dir := t.TempDir()
	n := 1 + rng.IntN(5000)
	want := randomBytes(rng, n)
	p := filepath.Join(dir, "sine.go")
	require.NoError(t, os.WriteFile(p, want, 0o644))

	got, err := ReadRegular(p, int64(n))
	require.NoError(t, err)
	assert.Equal(t, want, got, "exactly at the limit")

	_, err = ReadRegular(p, int64(n-1))
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), fmt.Sprintf("%d bytes, more than the %d", n, n-1), "names the size and the limit")
	assert.True(t, Refused(err))
}

func TestReadRegularRefusesLinksFIFOsFoldersAndDevices(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.go")
	require.NoError(t, os.WriteFile(target, []byte("package x\n"), 0o644))

	link := filepath.Join(dir, "link.go")
	require.NoError(t, os.Symlink(target, link))
	_, err := ReadRegular(link, MaxSourceBytes)
	assert.Equal(t, ErrLink, err, "a link is refused, not followed")

	fifo := filepath.Join(dir, "fifo.go")
	if err := mkfifo(fifo); err != nil {
		t.Logf("no FIFO here: %v", err)
	} else {
		done := make(chan error, 1)
		go func() { _, err := ReadRegular(fifo, MaxSourceBytes); done <- err }()
		select {
		case err := <-done:
			require.ErrorIs(t, err, ErrNotRegular)
			assert.Contains(t, err.Error(), "FIFO")
		case <-time.After(testlimit.Legit(t)):
			// Refusing a FIFO is legitimate work: it waits on no
			// writer, so only the test's deadline bounds it.
			t.Fatal("reading a FIFO blocked")
		}
	}

	_, err = ReadRegular(dir, MaxSourceBytes)
	require.ErrorIs(t, err, ErrNotRegular)
	assert.Contains(t, err.Error(), "a folder")

	_, err = ReadRegular("/dev/zero", MaxSourceBytes)
	require.ErrorIs(t, err, ErrNotRegular)
	assert.Contains(t, err.Error(), "a device")

	_, err = ReadRegular(filepath.Join(dir, "none.go"), MaxSourceBytes)
	require.Error(t, err)
	assert.False(t, Refused(err), "a file that is not there is for the caller to judge")
}

func TestSubmissionFileRefusesALinkAnywhereOnItsPath(t *testing.T) {
	for _, layout := range [][]string{{"exercises", "03_five_point", "fivepoint.go"}, {"03_five_point", "fivepoint.go"}} {
		dir := t.TempDir()
		p := filepath.Join(append([]string{dir}, layout...)...)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		src := fmt.Sprintf("package fivepoint\n\n// %d\n", time.Now().UnixNano())
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		got, err := SubmissionFile(dir, "03_five_point", "fivepoint.go")
		require.NoError(t, err)
		assert.Equal(t, src, string(got))
		got, err = ReadBelow(dir, strings.Join(layout, "/"), MaxSourceBytes)
		require.NoError(t, err)
		assert.Equal(t, src, string(got))

		// Each folder of the path, and the file, replaced by a link to
		// a copy of itself.
		for k := range layout {
			d2 := t.TempDir()
			real := filepath.Join(d2, "real")
			if k == len(layout)-1 {
				require.NoError(t, os.WriteFile(real, []byte(src), 0o644))
			} else {
				require.NoError(t, os.CopyFS(real, os.DirFS(filepath.Join(append([]string{dir}, layout[:k+1]...)...))))
			}
			sub := filepath.Join(d2, "sub")
			q := filepath.Join(append([]string{sub}, layout[:k]...)...)
			require.NoError(t, os.MkdirAll(q, 0o755))
			require.NoError(t, os.Symlink(real, filepath.Join(q, layout[k])))
			_, err := SubmissionFile(sub, "03_five_point", "fivepoint.go")
			assert.ErrorIs(t, err, ErrLink, "%v, link at %d", layout, k)
			_, err = ReadBelow(sub, strings.Join(layout, "/"), MaxSourceBytes)
			assert.ErrorIs(t, err, ErrLink, "ReadBelow: %v, link at %d", layout, k)
		}
	}
	_, err := SubmissionFile(t.TempDir(), "03_five_point", "fivepoint.go")
	require.ErrorIs(t, err, ErrMissing)
	_, err = SubmissionFile(t.TempDir(), "..", "x.go")
	assert.ErrorContains(t, err, "not a plain file name")
}

// notebook builds a notebook of the given code cells (id → source), with
// an image output of imageBytes on each.
func notebook(cells map[string]string, imageBytes int, rng *rand.Rand) []byte {
	type cell struct {
		ID       string           `json:"id"`
		CellType string           `json:"cell_type"`
		Source   []string         `json:"source"`
		Outputs  []map[string]any `json:"outputs"`
		Metadata map[string]any   `json:"metadata"`
	}
	var cs []cell
	img := make([]byte, imageBytes*3/4)
	for i := range img {
		img[i] = byte(rng.IntN(256))
	}
	for id, src := range cells {
		lines := strings.SplitAfter(src, "\n")
		out := []map[string]any{{"output_type": "display_data", "data": map[string]any{"image/png": img}, "metadata": map[string]any{}}}
		cs = append(cs, cell{ID: id, CellType: "code", Source: lines, Outputs: out, Metadata: map[string]any{}})
		cs = append(cs, cell{ID: id + "-md", CellType: "markdown", Source: []string{"# <b>notes</b>"}, Metadata: map[string]any{}})
	}
	b, _ := json.Marshal(map[string]any{"cells": cs, "metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5})
	return b
}

func TestNotebookCellsDropOutputsBeforeTheLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	cells := map[string]string{}
	for i := range 5 {
		cells[fmt.Sprintf("c%d-code", i)] = fmt.Sprintf("func F%d() int {\n\treturn %d\n}\n", i, rng.IntN(1000))
	}
	// An honest notebook with figures: 5 images of 1 MB, 5 MB in all,
	// far over the limit of the code it holds.
	b := notebook(cells, 1_000_000, rng)
	require.Greater(t, len(b), 3*MaxNotebookCodeBytes)
	got, err := NotebookCells(b)
	require.NoError(t, err)
	assert.Equal(t, cells, got, "every code cell, none of the Markdown cells")

	p := filepath.Join(t.TempDir(), NotebookName)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	got, err = ReadNotebook(p)
	require.NoError(t, err)
	assert.Equal(t, cells, got)
}

func TestNotebookRefusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}

	_, err := ReadNotebook(write("garbage.ipynb", randomBytes(rng, 4096)))
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "not a notebook")

	deep := strings.Repeat("[", MaxNotebookDepth+1) + strings.Repeat("]", MaxNotebookDepth+1)
	_, err = NotebookCells([]byte(`{"cells": ` + deep + `}`))
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), fmt.Sprintf("more than %d levels", MaxNotebookDepth))
	// Brackets inside strings do not count.
	ok := `{"cells": [{"id": "a-code", "cell_type": "code", "source": "` + strings.Repeat("[{", 500) + `\"]"}]}`
	got, err := NotebookCells([]byte(ok))
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("[{", 500)+`"]`, got["a-code"])

	code := strings.Repeat("x", MaxNotebookCodeBytes/2+1)
	_, err = NotebookCells(notebook(map[string]string{"a-code": code, "b-code": code}, 10, rng))
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), fmt.Sprintf("more than the %d bytes of code", MaxNotebookCodeBytes))

	big := filepath.Join(dir, "big.ipynb")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxNotebookBytes+1)) // sparse: no disk used
	require.NoError(t, f.Close())
	_, err = ReadNotebook(big)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), fmt.Sprintf("more than the %d", MaxNotebookBytes))

	link := filepath.Join(dir, "link.ipynb")
	require.NoError(t, os.Symlink(write("real.ipynb", notebook(map[string]string{"a-code": "x"}, 1, rng)), link))
	_, err = ReadNotebook(link)
	require.ErrorIs(t, err, ErrLink)
	assert.Contains(t, err.Error(), "link.ipynb is a symbolic link")

	_, err = NotebookCells([]byte(`{"cells": [{"id": "a-code", "cell_type": "code", "source": 7}]}`))
	require.ErrorIs(t, err, ErrMalformed)

	var many bytes.Buffer
	many.WriteString(`{"cells": [`)
	for i := range MaxNotebookCells + 1 {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`{"cell_type": "markdown", "source": ""}`)
	}
	many.WriteString(`]}`)
	_, err = NotebookCells(many.Bytes())
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), fmt.Sprintf("more than the %d a notebook", MaxNotebookCells))
	assert.True(t, errors.Is(err, ErrTooLarge) && Refused(err))
}

func FuzzNotebookCells(f *testing.F) {
	f.Add([]byte(`{"cells": [{"id": "a-code", "cell_type": "code", "source": ["x\n", "y"]}]}`))
	f.Add([]byte(`{"cells": [[[[`))
	f.Add([]byte(`"\\"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cells, err := NotebookCells(b)
		if err != nil {
			assert.True(t, Refused(err), "every refusal wraps a sentinel: %v", err)
			return
		}
		total := 0
		for _, src := range cells {
			total += len(src)
		}
		assert.LessOrEqual(t, total, MaxNotebookCodeBytes)
	})
}

// BenchmarkNotebookCells reads a notebook of 48 MiB, nearly all of it
// figures, as the grader reads an honest notebook near the limit.
func BenchmarkNotebookCells(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	cells := map[string]string{}
	for i := range 24 {
		cells[fmt.Sprintf("c%d-code", i)] = fmt.Sprintf("func F%d() int { return %d }\n", i, i)
	}
	nb := notebook(cells, 2<<20, rng)
	b.SetBytes(int64(len(nb)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NotebookCells(nb); err != nil {
			b.Fatal(err)
		}
	}
}
