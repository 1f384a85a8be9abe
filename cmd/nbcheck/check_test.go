package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pngBase64 encodes a w×h PNG filled with c, with the pixel (1, 1) set to
// dot when dot is not nil.
func pngBase64(t *testing.T, w, h int, c color.Color, dot color.Color) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	if dot != nil {
		img.Set(1, 1, dot)
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

const (
	svgPlot  = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="white"/><path d="M0 0 L40 40" stroke="black"/><text x="2" y="10">x</text></svg>`
	svgBlank = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="white"/></svg>`
)

// nb builds an executed notebook from code cells, each a list of outputs,
// with min_images declared in its metadata when min ≥ 0.
func nb(t *testing.T, min int, cells ...[]map[string]any) []byte {
	t.Helper()
	var cs []map[string]any
	for i, outs := range cells {
		if outs == nil {
			outs = []map[string]any{}
		}
		cs = append(cs, map[string]any{
			"cell_type": "code", "id": fmt.Sprintf("c%d", i+1), "metadata": map[string]any{},
			"execution_count": i + 1, "source": []string{"%%\n", "fmt.Println(1)"}, "outputs": outs,
		})
	}
	meta := map[string]any{"kernelspec": map[string]any{"name": "gonb"}}
	if min >= 0 {
		meta["stencillab"] = map[string]any{"min_images": min}
	}
	b, err := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": meta, "cells": cs})
	require.NoError(t, err)
	return b
}

func display(mime, data string) map[string]any {
	return map[string]any{"output_type": "display_data", "metadata": map[string]any{}, "data": map[string]any{mime: data}}
}

func TestCheckCountsEveryKindOfImage(t *testing.T) {
	dotted := pngBase64(t, 8, 6, color.White, color.Black)
	data := nb(t, 5,
		[]map[string]any{
			{"output_type": "stream", "name": "stdout", "text": "hello\n"},
			display("image/png", dotted),
		},
		[]map[string]any{display("image/svg+xml", svgPlot)},
		[]map[string]any{display("text/html", `<div>`+svgPlot+`</div>`)},
		[]map[string]any{display("text/html", `<p>frame</p><img alt="t" src="data:image/png;base64,`+dotted+`"/>`)},
		[]map[string]any{{
			"output_type": "execute_result", "execution_count": 5, "metadata": map[string]any{},
			"data": map[string]any{"image/png": dotted, "text/plain": "<Figure>"},
		}},
	)
	r := Check("ok.ipynb", data, -1)
	assert.Empty(t, r.Problems)
	assert.True(t, r.OK())
	assert.Equal(t, 5, r.Images)
	assert.Equal(t, 5, r.MinImages)
	assert.Equal(t, 5, r.CodeCells)
	assert.Equal(t, "ok   ok.ipynb: 5 code cells, 5 images (at least 5)", r.String())
}

func TestCheckOneBundleIsOneImage(t *testing.T) {
	dotted := pngBase64(t, 4, 4, color.White, color.Black)
	data := nb(t, 2, []map[string]any{{
		"output_type": "display_data", "metadata": map[string]any{},
		"data": map[string]any{"image/png": dotted, "image/svg+xml": svgPlot, "text/html": "<img src=\"x.png\">"},
	}})
	r := Check("bundle.ipynb", data, -1)
	assert.Equal(t, 1, r.Images)
	assert.Equal(t, []string{"1 image, expected at least 2"}, r.Problems)
}

func TestCheckErrorOutputFails(t *testing.T) {
	data := nb(t, 0,
		nil,
		[]map[string]any{{
			"output_type": "error", "ename": "ERROR",
			"evalue":    "# gonb_1234\n./main.go:11:13: undefined: x\n",
			"traceback": []string{"undefined: x"},
		}},
	)
	r := Check("err.ipynb", data, -1)
	assert.False(t, r.OK())
	assert.Equal(t, []string{"cell 2 (id c2): error ERROR: ./main.go:11:13: undefined: x"}, r.Problems)
	assert.Equal(t, "FAIL err.ipynb: cell 2 (id c2): error ERROR: ./main.go:11:13: undefined: x", r.String())
}

func TestCheckBlankImagesFail(t *testing.T) {
	blank := pngBase64(t, 5, 3, color.RGBA{R: 10, G: 20, B: 30, A: 255}, nil)
	data := nb(t, 3,
		[]map[string]any{display("image/png", blank)},
		[]map[string]any{display("image/svg+xml", svgBlank)},
		[]map[string]any{display("text/html", `<img src='data:image/png;base64,`+blank+`'>`)},
	)
	r := Check("blank.ipynb", data, -1)
	assert.Equal(t, 3, r.Images)
	assert.Equal(t, []string{
		"cell 1 (id c1): image/png: blank image: all 5×3 pixels have one colour",
		"cell 2 (id c2): image/svg+xml: blank drawing: 1 shape",
		"cell 3 (id c3): text/html <img>: blank image: all 5×3 pixels have one colour",
	}, r.Problems)
}

func TestCheckTooFewImages(t *testing.T) {
	dotted := pngBase64(t, 4, 4, color.White, color.Black)
	data := nb(t, 3, []map[string]any{display("image/png", dotted)})
	r := Check("few.ipynb", data, -1)
	assert.Equal(t, []string{"1 image, expected at least 3"}, r.Problems)

	// -min overrides the declaration, in both directions.
	assert.True(t, Check("few.ipynb", data, 1).OK())
	r = Check("few.ipynb", data, 2)
	assert.Equal(t, 2, r.MinImages)
	assert.Equal(t, []string{"1 image, expected at least 2"}, r.Problems)

	// Without a declaration no image is required.
	r = Check("none.ipynb", nb(t, -1, nil), -1)
	assert.True(t, r.OK())
	assert.Equal(t, 0, r.MinImages)
}

func TestCheckUnexecutedCellFails(t *testing.T) {
	src := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
	  {"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# Title"},
	  {"cell_type": "code", "id": "empty", "metadata": {}, "execution_count": null, "outputs": [], "source": ["  \n"]},
	  {"cell_type": "code", "id": "late", "metadata": {}, "execution_count": null, "outputs": [], "source": "%%\nfmt.Println(1)"}]}`
	r := Check("raw.ipynb", []byte(src), -1)
	assert.Equal(t, 2, r.CodeCells)
	assert.Equal(t, []string{"cell 3 (id late) did not run"}, r.Problems)
}

func TestCheckImgThatIsNotEmbeddedFails(t *testing.T) {
	data := nb(t, 1, []map[string]any{display("text/html", `<IMG SRC="https://example.com/plot.png">`)})
	r := Check("link.ipynb", data, -1)
	assert.Equal(t, 1, r.Images)
	assert.Equal(t, []string{`cell 1 (id c1): text/html <img>: src "https://example.com/plot.png" is not embedded data`}, r.Problems)
}

func TestCheckSVGDataURI(t *testing.T) {
	uri := "data:image/svg+xml," + url.PathEscape(svgPlot)
	data := nb(t, 1, []map[string]any{display("text/html", `<img src="`+uri+`">`)})
	r := Check("svguri.ipynb", data, -1)
	assert.Empty(t, r.Problems)
	assert.Equal(t, 1, r.Images)
}

func TestCheckNotANotebook(t *testing.T) {
	r := Check("junk.ipynb", []byte("not json"), -1)
	require.Len(t, r.Problems, 1)
	assert.True(t, strings.HasPrefix(r.Problems[0], "not a notebook: "), r.Problems[0])

	r = Check("v3.ipynb", []byte(`{"nbformat": 3, "worksheets": []}`), -1)
	assert.Equal(t, []string{"nbformat 3, want 4"}, r.Problems)
}

func TestRunPrintsOneLinePerNotebookAndTotals(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ipynb")
	bad := filepath.Join(dir, "bad.ipynb")
	missing := filepath.Join(dir, "missing.ipynb")
	require.NoError(t, os.WriteFile(good, nb(t, 1, []map[string]any{display("image/svg+xml", svgPlot)}), 0o644))
	require.NoError(t, os.WriteFile(bad, nb(t, 1, []map[string]any{display("image/svg+xml", svgBlank)}), 0o644))

	var out, errOut bytes.Buffer
	code := run([]string{good, bad, missing}, &out, &errOut)
	assert.Equal(t, 1, code)
	assert.Empty(t, errOut.String())
	assert.Equal(t, strings.Join([]string{
		"ok   " + good + ": 1 code cells, 1 image (at least 1)",
		"FAIL " + bad + ": cell 1 (id c1): image/svg+xml: blank drawing: 1 shape",
		"FAIL " + missing + ": no executed notebook at " + missing + " (did its execution fail?)",
		"1 passed, 2 failed",
		"",
	}, "\n"), out.String())

	out.Reset()
	assert.Equal(t, 0, run([]string{good}, &out, &errOut))
	assert.True(t, strings.HasSuffix(out.String(), "1 passed, 0 failed\n"), out.String())
}

func TestRunUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, run(nil, &out, &errOut))
	assert.Contains(t, errOut.String(), "usage: nbcheck")
	assert.Equal(t, 2, run([]string{"-bogus"}, &out, &errOut))
	assert.Empty(t, out.String())
}
