package release

import (
	"encoding/json"
	"fmt"
	"slices"

	"stencillab.dev/internal/nbformat"
)

// AnswerTag is the cell tag of an answer in the course's notebooks: the
// instructor's tree shows the cell, right after the question's check, and
// the student version leaves it out. The question, its prediction cell and
// its check stay.
const AnswerTag = "answer"

// cellTags returns the tags of a notebook cell's metadata.
func cellTags(cell map[string]json.RawMessage) ([]string, error) {
	raw, ok := cell["metadata"]
	if !ok {
		return nil, nil
	}
	var meta struct {
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	return meta.Tags, nil
}

// NotebookHasAnswers reports whether a cell of the notebook src is tagged
// AnswerTag.
func NotebookHasAnswers(src []byte) bool {
	var nb struct {
		Cells []map[string]json.RawMessage `json:"cells"`
	}
	if json.Unmarshal(src, &nb) != nil {
		return false
	}
	for _, c := range nb.Cells {
		if tags, err := cellTags(c); err == nil && slices.Contains(tags, AnswerTag) {
			return true
		}
	}
	return false
}

// StripAnswers returns the notebook src without its cells tagged
// AnswerTag. Every other cell, outputs included, is kept as it is: the
// course's notebooks keep their figures in the student version.
func StripAnswers(name string, src []byte) ([]byte, error) {
	var nb map[string]json.RawMessage
	if err := json.Unmarshal(src, &nb); err != nil {
		return nil, fmt.Errorf("release: %s: not a notebook: %w", name, err)
	}
	var cells []map[string]json.RawMessage
	if err := json.Unmarshal(nb["cells"], &cells); err != nil {
		return nil, fmt.Errorf("release: %s: cells: %w", name, err)
	}
	kept := cells[:0]
	for i, c := range cells {
		tags, err := cellTags(c)
		if err != nil {
			return nil, fmt.Errorf("release: %s: cell %d: %w", name, i, err)
		}
		if !slices.Contains(tags, AnswerTag) {
			kept = append(kept, c)
		}
	}
	var err error
	if nb["cells"], err = nbformat.Marshal(kept); err != nil {
		return nil, fmt.Errorf("release: %s: %w", name, err)
	}
	b, err := nbformat.Encode(nb)
	if err != nil {
		return nil, fmt.Errorf("release: %s: %w", name, err)
	}
	return b, nil
}
