package gradebook

import (
	"fmt"
	"html"
	"strings"

	"stencillab.dev/exercises/grading"
)

// h escapes text for HTML (html.EscapeString: '<', '>', '&', quotes) and
// replaces control characters, so that a student's text is shown as the
// same characters and can open no tag, attribute or entity.
func h(s string) string {
	return html.EscapeString(keepLines(s))
}

// FeedbackHTML is the student's feedback as a standalone HTML page, with
// the content of Feedback: every text of the hand-in or of the student's
// process escaped, messages in <pre>.
func (g *Book) FeedbackHTML(s *Student) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>Feedback for %s</title>\n", h(s.ID))
	b.WriteString("<style>body{font-family:sans-serif;max-width:60em;margin:auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}pre{white-space:pre-wrap;margin:0}</style>\n")
	b.WriteString("</head>\n<body>\n")
	fmt.Fprintf(&b, "<h1>Feedback for %s</h1>\n", h(s.ID))
	if s.Folder != "" && s.Folder != s.ID {
		fmt.Fprintf(&b, "<p>Graded from the folder <code>%s</code> under the id <code>%s</code>, derived from its name.</p>\n", h(QuoteName(s.Folder)), h(s.ID))
	}
	if s.Note != "" {
		fmt.Fprintf(&b, "<p>The hand-in was refused as a whole:</p>\n<pre>%s</pre>\n", h(s.Note))
	}
	state := ""
	if !s.Complete {
		state = " (some exercises are not graded yet)"
	}
	fmt.Fprintf(&b, "<p>Total: %d/%d%s</p>\n", s.Points, s.GradedMax, state)
	if s.WithheldMax > 0 {
		fmt.Fprintf(&b, "<p>Not graded yet: %d points more, graded later on the GPU.</p>\n", s.WithheldMax)
	}
	if p := g.studentPseudonym(s.ID); p != "" {
		fmt.Fprintf(&b, "<p>On the leaderboard of %s you are <code>%s</code>: the leaderboard names no one, and only you are told yours.</p>\n", h(g.leaderboardID), h(p))
	}
	if g.EmptyHandIn(s) {
		fmt.Fprintf(&b, "<p>%s</p>\n</body>\n</html>\n", h(emptyHandIn))
		return b.String()
	}
	for _, e := range g.Exercises {
		title := h(e.ID + " " + e.Title)
		c := s.Cells[e.ID]
		switch {
		case c == nil:
			fmt.Fprintf(&b, "<h2>%s: not graded</h2>\n", title)
			continue
		case c.State == StateNeedsGPU && c.Override == nil:
			fmt.Fprintf(&b, "<h2>%s: –/%d, graded later on the GPU</h2>\n", title, c.MaxPoints)
			continue
		case c.State == StateWithheld && c.Override == nil:
			fmt.Fprintf(&b, "<h2>%s: –/%d, withheld: the hand-in has no CUDA file</h2>\n", title, c.MaxPoints)
		case c.State == StateError && c.Override == nil:
			fmt.Fprintf(&b, "<h2>%s: –/%d, not graded: the grader could not run it</h2>\n", title, c.MaxPoints)
		default:
			fmt.Fprintf(&b, "<h2>%s: %d/%d</h2>\n", title, c.Score(), c.MaxPoints)
		}
		if c.Override != nil {
			fmt.Fprintf(&b, "<p>Override by the instructor: %d/%d instead of %d. %s</p>\n", c.Override.Points, c.MaxPoints, c.Override.Was, h(c.Override.Reason))
		}
		if c.Result == nil || s.Source == SourceRefused {
			continue
		}
		r := c.Result
		if r.Status != grading.Graded {
			fmt.Fprintf(&b, "<p>Status: %s.</p>\n", h(string(r.Status)))
			if strings.TrimSpace(r.Message) != "" {
				fmt.Fprintf(&b, "<pre>%s</pre>\n", h(r.Message))
			}
		}
		if len(r.Checks) > 0 {
			b.WriteString("<table>\n<tr><th>check</th><th>points</th><th>result</th></tr>\n")
			for _, ch := range r.Checks {
				msg := "<pre>" + h(strings.TrimSpace(ch.Message)) + "</pre>"
				if ch.Passed {
					msg = "ok: " + h(ch.Title)
				}
				hidden := ""
				if ch.Hidden {
					hidden = " (hidden)"
				}
				fmt.Fprintf(&b, "<tr><td>%s%s</td><td>%d/%d</td><td>%s</td></tr>\n", h(ch.ID), hidden, ch.Points, ch.MaxPoints, msg)
			}
			b.WriteString("</table>\n")
		}
		fmt.Fprintf(&b, "<p>Seed %d.</p>\n", c.Seed)
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}
