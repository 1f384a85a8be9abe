package nbformat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitSourceJoinsBack(t *testing.T) {
	for _, text := range []string{"", "a", "a\n", "a\nb", "a\n\nb\n", "\n"} {
		lines := SplitSource(text)
		assert.Equal(t, text, strings.Join(lines, ""), "%q", text)
		for i, l := range lines {
			if i < len(lines)-1 {
				assert.True(t, strings.HasSuffix(l, "\n"), "%q: line %d", text, i)
			}
			assert.LessOrEqual(t, strings.Count(l, "\n"), 1)
		}
	}
	assert.Equal(t, []string{}, SplitSource(""), "an empty source is an empty list, not null")
}

func TestCellSourceTakesBothForms(t *testing.T) {
	s, err := CellSource(json.RawMessage(`"x <y>\nz"`))
	require.NoError(t, err)
	assert.Equal(t, "x <y>\nz", s)
	s, err = CellSource(json.RawMessage(`["x <y>\n", "z"]`))
	require.NoError(t, err)
	assert.Equal(t, "x <y>\nz", s)
	_, err = CellSource(json.RawMessage(`3`))
	assert.Error(t, err)
}

func TestEncodeAsNbformat(t *testing.T) {
	src, err := Marshal(SplitSource("a < b && c\n"))
	require.NoError(t, err)
	assert.Equal(t, `["a < b && c\n"]`, string(src))
	b, err := Encode(map[string]any{"cells": []map[string]json.RawMessage{{"source": src}}})
	require.NoError(t, err)
	assert.Equal(t, "{\n \"cells\": [\n  {\n   \"source\": [\n    \"a < b && c\\n\"\n   ]\n  }\n ]\n}\n", string(b))
	_, err = Encode(map[string]any{"bad": func() {}})
	assert.Error(t, err)
}
