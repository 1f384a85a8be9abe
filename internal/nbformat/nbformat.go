// Package nbformat reads and writes the parts of Jupyter notebooks the lab
// edits, the way nbformat itself writes them: one-space indent, <, > and &
// left unescaped, a cell's source as a list of lines.
package nbformat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Encode returns the notebook v as nbformat writes it: indented by one
// space, HTML left unescaped, ending in a newline.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("nbformat: %w", err)
	}
	return buf.Bytes(), nil
}

// Marshal encodes v as compact JSON without escaping <, > and &, for a
// part of a notebook that Encode indents later.
func Marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("nbformat: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// CellSource returns a cell's source, stored as one string or a list of
// lines.
func CellSource(raw json.RawMessage) (string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return one, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return "", fmt.Errorf("nbformat: source is neither a string nor a list of strings: %w", err)
	}
	return strings.Join(lines, ""), nil
}

// SplitSource splits text into the notebook's list of lines, each but the
// last ending in a newline.
func SplitSource(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	if lines == nil {
		lines = []string{}
	}
	return lines
}
