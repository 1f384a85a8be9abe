package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"stencillab.dev/internal/nbformat"
	"stencillab.dev/notebooks/nbrun/predict"
)

// A Check-yourself question in a notebook is a markdown cell tagged
// "question", then the cells a student works with, then its check: a code
// cell that calls nbrun.Check or nbrun.Reveal. The students' copy must
// show nothing of the answer before the check, and the committed outputs
// of the cells in between (a convergence table, a model's numbers) often
// do: the release clears them. Outputs before the question and after the
// check stay, so that the figures the lesson builds on are there.

// stripQuestionOutputs clears, in every notebook of the folder
// out/notebooks, the outputs of the code cells between a question and its
// check, the check included. It returns the notebooks it changed.
func stripQuestionOutputs(out string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(out, "notebooks", "*.ipynb"))
	if err != nil {
		return nil, fmt.Errorf("release: notebooks: %w", err)
	}
	var changed []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("release: %w", err)
		}
		b, n, err := stripBetweenQuestionAndCheck(filepath.Base(f), src)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		st, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("release: %w", err)
		}
		if err := os.WriteFile(f, b, st.Mode().Perm()); err != nil {
			return nil, fmt.Errorf("release: %w", err)
		}
		changed = append(changed, filepath.ToSlash(filepath.Join("notebooks", filepath.Base(f))))
	}
	return changed, nil
}

// stripBetweenQuestionAndCheck returns the notebook src with the outputs
// of the code cells from each question to its check cleared, and how many
// cells it cleared.
func stripBetweenQuestionAndCheck(name string, src []byte) ([]byte, int, error) {
	var nb map[string]json.RawMessage
	if err := json.Unmarshal(src, &nb); err != nil {
		return nil, 0, fmt.Errorf("release: %s: not a notebook: %w", name, err)
	}
	var cells []map[string]json.RawMessage
	if err := json.Unmarshal(nb["cells"], &cells); err != nil {
		return nil, 0, fmt.Errorf("release: %s: cells: %w", name, err)
	}
	cleared, open := 0, -1 // open: the question cell whose check is still to come
	for i, c := range cells {
		var kind string
		if err := json.Unmarshal(c["cell_type"], &kind); err != nil {
			return nil, 0, fmt.Errorf("release: %s: cell %d: cell_type: %w", name, i, err)
		}
		if kind == "markdown" {
			var meta struct {
				Tags []string `json:"tags"`
			}
			if raw, ok := c["metadata"]; ok {
				if err := json.Unmarshal(raw, &meta); err != nil {
					return nil, 0, fmt.Errorf("release: %s: cell %d: metadata: %w", name, i, err)
				}
			}
			if slices.Contains(meta.Tags, predict.QuestionTag) && open < 0 {
				open = i
			}
			continue
		}
		if kind != "code" || open < 0 {
			continue
		}
		text, err := nbformat.CellSource(c["source"])
		if err != nil {
			return nil, 0, fmt.Errorf("release: %s: cell %d: %w", name, i, err)
		}
		if string(c["outputs"]) != "[]" && len(c["outputs"]) > 0 {
			c["outputs"] = json.RawMessage("[]")
			c["execution_count"] = json.RawMessage("null")
			cleared++
		}
		if predict.CheckCall.MatchString(text) {
			open = -1
		}
	}
	if cleared == 0 {
		return src, 0, nil
	}
	var err error
	if nb["cells"], err = nbformat.Marshal(cells); err != nil {
		return nil, 0, fmt.Errorf("release: %s: %w", name, err)
	}
	b, err := nbformat.Encode(nb)
	if err != nil {
		return nil, 0, fmt.Errorf("release: %s: %w", name, err)
	}
	return b, cleared, nil
}
