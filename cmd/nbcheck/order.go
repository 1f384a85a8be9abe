package main

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Predictions before answers: a "Check yourself" question asks for a
// prediction, so it must come before every cell that shows its answer.
// The question's cell (tagged "question") names those cells by id in its
// metadata:
//
//	"metadata": {"tags": ["question"], "revealed_by": ["convergence-md", "convergence"]}
//
// an empty list when no cell before the question's own answer shows it.
// The question's prediction and check cells (tagged "prediction" and
// "check") and its answer (tagged "answer") follow it before the next
// question, and every cell of revealed_by comes after the question and its
// prediction: the check may follow the cells that reveal the answer, since
// it needs what they compute, but the prediction is written before.

// CheckPredictionOrder parses a notebook and returns what is wrong with
// the order of its questions, one line each, naming the notebook.
func CheckPredictionOrder(name string, b []byte) ([]string, error) {
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	at := map[string]int{}
	for i, c := range nb.Cells {
		if c.ID != "" {
			at[c.ID] = i
		}
	}
	tagged := func(i int, tag string) bool { return slices.Contains(nb.Cells[i].Metadata.Tags, tag) }
	var problems []string
	for q, c := range nb.Cells {
		if !tagged(q, "question") {
			continue
		}
		// The question's own cells: those up to the next question.
		last := q // its prediction cell
		for i := q + 1; i < len(nb.Cells) && !tagged(i, "question"); i++ {
			if tagged(i, "prediction") {
				last = i
			}
		}
		if c.Metadata.RevealedBy == nil {
			problems = append(problems, fmt.Sprintf("%s: question %s does not say which cells reveal its answer (metadata revealed_by, [] for none)", name, c.ID))
			continue
		}
		for _, id := range *c.Metadata.RevealedBy {
			i, ok := at[id]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s: question %s: revealed_by names %q, which is no cell of the notebook", name, c.ID, id))
			case tagged(i, "question") || tagged(i, "prediction") || tagged(i, "check") || tagged(i, "answer"):
				problems = append(problems, fmt.Sprintf("%s: question %s: revealed_by names %q, a question's own cell", name, c.ID, id))
			case i < q:
				problems = append(problems, fmt.Sprintf("%s: question %s comes after cell %s, which reveals its answer: move the question before it", name, c.ID, id))
			case i < last:
				problems = append(problems, fmt.Sprintf("%s: question %s: cell %s reveals its answer before its prediction cell", name, c.ID, id))
			}
		}
	}
	return problems, nil
}
