package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPredictionOrder: in every notebook each question comes before the
// cells that reveal its answer, and says which they are.
func TestPredictionOrder(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, "notebooks", "[0-9][0-9]*_*.ipynb"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 11)
	questions := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		problems, err := CheckPredictionOrder(filepath.Base(f), b)
		require.NoError(t, err)
		for _, p := range problems {
			t.Error(p)
		}
		var nb notebook
		require.NoError(t, json.Unmarshal(b, &nb))
		for _, c := range nb.Cells {
			if c.Metadata.RevealedBy != nil {
				questions++
			}
		}
	}
	assert.GreaterOrEqual(t, questions, 16, "the course's notebooks ask two or three questions each")
}

// orderNB builds a notebook of cells given as id, tags and revealed_by.
func orderNB(t *testing.T, cells ...map[string]any) []byte {
	t.Helper()
	var cs []map[string]any
	for _, c := range cells {
		meta := map[string]any{}
		if tags, ok := c["tags"]; ok {
			meta["tags"] = tags
		}
		if r, ok := c["revealed_by"]; ok {
			meta["revealed_by"] = r
		}
		cs = append(cs, map[string]any{"id": c["id"], "cell_type": "markdown", "metadata": meta, "source": []string{}})
	}
	b, err := json.Marshal(map[string]any{"cells": cs})
	require.NoError(t, err)
	return b
}

func TestCheckPredictionOrder(t *testing.T) {
	q := func(id string, revealed ...string) map[string]any {
		if revealed == nil {
			revealed = []string{}
		}
		return map[string]any{"id": id, "tags": []string{"question"}, "revealed_by": revealed}
	}
	plain := func(id string) map[string]any { return map[string]any{"id": id} }
	tag := func(id, tag string) map[string]any { return map[string]any{"id": id, "tags": []string{tag}} }

	good := orderNB(t, plain("intro"), q("q1", "chart"), tag("p1", "prediction"), tag("c1", "check"), tag("a1", "answer"),
		plain("chart"), q("q2"), tag("p2", "prediction"), tag("c2", "check"))
	problems, err := CheckPredictionOrder("nb", good)
	require.NoError(t, err)
	assert.Empty(t, problems)

	late := orderNB(t, plain("chart"), q("q1", "chart"), tag("p1", "prediction"))
	problems, err = CheckPredictionOrder("nb", late)
	require.NoError(t, err)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "question q1 comes after cell chart")

	between := orderNB(t, q("q1", "chart"), plain("chart"), tag("p1", "prediction"))
	problems, _ = CheckPredictionOrder("nb", between)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "before its prediction cell")

	undeclared := orderNB(t, tag("q1", "question"), tag("p1", "prediction"))
	problems, _ = CheckPredictionOrder("nb", undeclared)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "does not say")

	unknown := orderNB(t, q("q1", "nowhere", "a1"), tag("a1", "answer"))
	problems, _ = CheckPredictionOrder("nb", unknown)
	require.Len(t, problems, 2)
	assert.Contains(t, problems[0], "no cell")
	assert.Contains(t, problems[1], "own cell")

	_, err = CheckPredictionOrder("nb", []byte("{"))
	assert.Error(t, err)
}
