package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// File claims: a paragraph of the prose that says what is or is not
// committed, lent or run ("the benches are committed", "no DRAM profile of
// the H200 is committed", "no machine of four GPUs was lent", "it has not
// been run yet") goes stale the day the file arrives. Such a paragraph
// must name the files its statement rests on, in a comment that neither
// Jupyter nor GitHub shows, and the test checks them against the
// repository:
//
//	the benches are committed<!-- committed: figures/data/bench_h200.json -->
//	no DRAM profile of the four kernels on the H200<!-- absent: figures/data/dram_h200.json -->
//
// "committed:" lists paths or globs that must each match a file; "absent:"
// lists globs that must match none. Prose also never points to an issue
// tracker, which the repository does not hold ("issue 27's model", "the
// issue's probe").

var (
	// fileClaimRe finds a statement of what is or is not committed, lent
	// or run.
	fileClaimRe = regexp.MustCompile(`(?i)\b(?:is|are|was|were|been)\s+(?:not\s+|never\s+)?(?:yet\s+)?(?:committed|lent)\b|\bnot\s+(?:yet\s+)?been\s+run\b|\bno\s+\S+\s+(?:\S+\s+){0,6}(?:is|are|was|were)\s+(?:available|committed|lent)\b`)
	// fileNoteRe finds the comment that names a statement's files.
	fileNoteRe = regexp.MustCompile(`<!--\s*(committed|absent):\s*(.*?)-->`)
	// issueRe finds a pointer to an issue tracker.
	issueRe = regexp.MustCompile(`(?i)\b(?:issue\s+#?\d+|the\s+issue's|issues?/\d+)`)
)

// CheckFileClaims returns what is wrong with the file claims of one text
// of the prose (where names it): a statement whose paragraph names no
// files, a named file that is missing, an absent one that is there, and
// every pointer to an issue tracker.
func CheckFileClaims(root, where, text string) []string {
	var problems []string
	for _, m := range issueRe.FindAllString(stripFences(text), -1) {
		problems = append(problems, fmt.Sprintf("%s: %q points to an issue tracker the repository does not hold; say what it means instead", where, m))
	}
	for _, para := range strings.Split(stripFences(text), "\n\n") {
		plain := fileNoteRe.ReplaceAllString(para, "")
		claims := fileClaimRe.FindAllString(stripComments(plain), -1)
		notes := fileNoteRe.FindAllStringSubmatch(para, -1)
		if len(claims) > 0 && len(notes) == 0 {
			problems = append(problems, fmt.Sprintf("%s: %q says what is committed, lent or run but names no files (<!-- committed: PATH --> or <!-- absent: PATH -->)", where, claims[0]))
		}
		for _, n := range notes {
			for _, p := range strings.FieldsFunc(n[2], func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
				got, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(p)))
				switch {
				case err != nil:
					problems = append(problems, fmt.Sprintf("%s: %s %q: %v", where, n[1], p, err))
				case n[1] == "committed" && len(got) == 0:
					problems = append(problems, fmt.Sprintf("%s: says %s is committed, and it is not", where, p))
				case n[1] == "absent" && len(got) > 0:
					problems = append(problems, fmt.Sprintf("%s: says %s is not committed, and it is (%s)", where, p, filepath.Base(got[0])))
				}
			}
		}
	}
	return problems
}

// stripFences removes the fenced code blocks of a Markdown text.
func stripFences(text string) string { return fenceRe.ReplaceAllString(text, "") }

// commentRe finds an HTML comment.
var commentRe = regexp.MustCompile(`(?s)<!--.*?-->`)

// stripComments removes the HTML comments of a text: a claim's source
// says "run committed" without the prose saying so.
func stripComments(text string) string { return commentRe.ReplaceAllString(text, "") }
