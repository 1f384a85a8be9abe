package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RunTimes is notebooks/data/run_times.json: how long each notebook took
// to run headless, as scripts/run-notebooks.sh printed it.
type RunTimes struct {
	Command   string `json:"command"`
	Machine   string `json:"machine"`
	Date      string `json:"date"`
	Notebooks []struct {
		Notebook string  `json:"notebook"`
		Seconds  float64 `json:"seconds"`
	} `json:"notebooks"`
}

// RunTimeText is how notebooks/README.md writes a run time: to the
// nearest 5 seconds under two minutes, else to the nearest half minute.
func RunTimeText(seconds float64) string {
	if seconds < 117.5 {
		return "about " + strconv.Itoa(max(5, int(5*math.Round(seconds/5)))) + " s"
	}
	return "about " + strconv.FormatFloat(math.Round(seconds/30)/2, 'f', -1, 64) + " min"
}

func TestRunTimeText(t *testing.T) {
	assert.Equal(t, "about 5 s", RunTimeText(0.4))
	assert.Equal(t, "about 60 s", RunTimeText(61.2))
	assert.Equal(t, "about 65 s", RunTimeText(63))
	assert.Equal(t, "about 2 min", RunTimeText(118))
	assert.Equal(t, "about 2.5 min", RunTimeText(151))
}

// TestReadmeRunTimes: the contents give each notebook's run time as the
// data file records it, and the file covers every notebook.
func TestReadmeRunTimes(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, "notebooks", "data", "run_times.json"))
	require.NoError(t, err)
	var rt RunTimes
	require.NoError(t, json.Unmarshal(b, &rt))
	require.NotEmpty(t, rt.Command)
	readme, err := os.ReadFile(filepath.Join(root, "notebooks", "README.md"))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, "notebooks", "[0-9][0-9]*_*.ipynb"))
	require.NoError(t, err)
	recorded := map[string]float64{}
	for _, n := range rt.Notebooks {
		assert.Greater(t, n.Seconds, 0.0, n.Notebook)
		recorded[n.Notebook] = n.Seconds
	}
	for _, f := range files {
		name := filepath.Base(f)
		if !hasCode(t, f) {
			continue // a page with no code, the start page, takes no time to run
		}
		s, ok := recorded[name]
		if !assert.True(t, ok, "%s has no recorded run time", name) {
			continue
		}
		// The contents' row of the notebook: its link, then its run time.
		row := regexp.MustCompile(`(?m)^\|[^\n]*\]\(` + regexp.QuoteMeta(name) + `\)[^\n]*\|\s*(about [0-9.]+ (?:s|min))\s*\|\s*$`)
		m := row.FindSubmatch(readme)
		if assert.NotNil(t, m, "notebooks/README.md: no row for %s ending with its run time", name) {
			assert.Equal(t, RunTimeText(s), string(m[1]), name)
		}
	}
}

// hasCode reports whether the notebook at path has a code cell that is not
// empty.
func hasCode(t *testing.T, path string) bool {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var nb notebook
	require.NoError(t, json.Unmarshal(b, &nb), path)
	for _, c := range nb.Cells {
		if c.CellType == "code" && strings.TrimSpace(string(c.Source)) != "" {
			return true
		}
	}
	return false
}
