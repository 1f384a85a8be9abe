package main

import (
	"os"
	"strings"
	"testing"
)

// Executed notebooks and their metadata are outside input: Check never
// panics, and each problem it reports is one line.
func FuzzCheck(f *testing.F) {
	if b, err := os.ReadFile("../../notebooks/02_stencils_and_grids.ipynb"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{``, `{}`, `{"nbformat": 4}`, `{"nbformat": 4, "metadata": {"stencillab": {"min_images": -1}}, "cells": []}`,
		`{"nbformat": 4, "metadata": {"stencillab": {"min_images": "x"}}}`, `{"nbformat": 4, "metadata": {"stencillab": {"min_images": 1e300}}}`,
		`{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["a", "b"], "outputs": [{"output_type": "display_data", "data": {"image/png": "AAAA", "text/html": "<img src=\"data:image/png;base64,x\">"}}]}]}`,
		`{"nbformat": 4, "cells": [{"cell_type": "code", "outputs": [{"output_type": "error", "ename": "E", "evalue": "v"}]}]}`,
		`{"nbformat": 4, "cells": [{"cell_type": "code", "outputs": [{"data": {"image/svg+xml": "<svg"}}]}]}`,
		"Fig. 8.6 (§8.2) reaches 39 % <!-- = 100*(1-216.0/512) ± 0.5 --> and 0.644 ms <!-- = 1<<2000 --> at 3.1 GB/s <!-- cited: x -->"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, min := range []int{-1, 1} {
			r := Check("fuzz.ipynb", data, min)
			for _, p := range r.Problems {
				if p == "" || strings.Contains(p, "\n") {
					t.Fatalf("problem %q is not one line", p)
				}
			}
			_ = r.String()
		}
		// The prose's claims and figure references: a claim's source is
		// evaluated as a Go constant expression.
		text := string(data)
		_ = MissingSections(text)
		for _, c := range FindClaims("fuzz", text) {
			if _, err := Eval(c.Source); err != nil && err.Error() == "" {
				t.Fatal("empty error")
			}
		}
		for _, p := range CompareCommitted("fuzz.ipynb", data, data) {
			if p == "" || strings.Contains(p, "\n") {
				t.Fatalf("problem %q is not one line", p)
			}
		}
	})
}
