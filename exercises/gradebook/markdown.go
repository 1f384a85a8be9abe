package gradebook

import (
	"fmt"
	"strings"

	"stencillab.dev/exercises/grading"
)

// Escape makes text safe in Markdown outside code, and keeps it readable:
// the characters that open markup inside a line are escaped with a
// backslash (backslash, backtick, '*', '_', '[', ']', '!', '|', '~', '#',
// '$'), '<', '>' and '&' become HTML entities (no tag, no comment, no
// entity of the text's own), the autolinks of GitHub's Markdown are
// broken ("https\://", "www\.", "\@"), control characters are replaced
// and line breaks become spaces. What a student wrote then renders as the
// same characters: no emphasis, link, image, table cell or tag.
func Escape(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029':
			b.WriteRune('\ufffd')
		case strings.ContainsRune("\\`*_[]!|~#$@", r),
			r == ':' && strings.HasPrefix(s[i:], "://"),
			r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CodeSpan puts one line of text in an inline code span that nothing in
// it can close: delimited by more backticks than any run of backticks in
// it, pipes escaped for a table cell (GitHub's tables split cells on '|'
// before they read code spans), control characters replaced.
func CodeSpan(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029':
			return '\ufffd'
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, "|", `\|`)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	return fence + " " + s + " " + fence
}

// CodeBlock puts text in a fenced code block that nothing in it can
// close: the fence is longer than any run of backticks in the text.
func CodeBlock(s string) string {
	s = keepLines(s)
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + "text\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

// keepLines keeps a text's lines and tabs, drops carriage returns and
// replaces every other control character (and the Unicode line and
// paragraph separators) with U+FFFD.
func keepLines(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return -1
		case r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029':
			return '\ufffd'
		}
		return r
	}, s)
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// cellText writes a message in a table cell: each line a code span, the
// lines joined by <br> (at most 12 lines, each at most 300 bytes).
func cellText(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 12 {
		lines = append(lines[:12], "…")
	}
	for i, l := range lines {
		if len(l) > 300 {
			l = l[:300] + "…"
		}
		lines[i] = CodeSpan(l)
	}
	return strings.Join(lines, "<br>")
}

// Feedback is a student's feedback file, in Markdown: each exercise's
// points and status, each check's points and message. Every text that
// comes from a hand-in or from a student's process is escaped or set in
// code.
func (g *Book) Feedback(s *Student) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Feedback for %s\n\n", Escape(s.ID))
	if s.Folder != "" && s.Folder != s.ID {
		fmt.Fprintf(&b, "Graded from the folder %s under the id %s, derived from its name: an id is made of letters, digits, '.', '_' and '-', and differs from every other in more than case.\n\n",
			CodeSpan(QuoteName(s.Folder)), CodeSpan(s.ID))
	}
	if s.Note != "" {
		fmt.Fprintf(&b, "The hand-in was refused as a whole:\n\n%s\n", CodeBlock(s.Note))
	}
	state := ""
	if !s.Complete {
		state = " (some exercises are not graded yet)"
	}
	fmt.Fprintf(&b, "Total: %d/%d%s\n", s.Points, s.GradedMax, state)
	if s.WithheldMax > 0 {
		fmt.Fprintf(&b, "\nNot graded yet: %d points more, graded later on the GPU.\n", s.WithheldMax)
	}
	if p := g.studentPseudonym(s.ID); p != "" {
		fmt.Fprintf(&b, "\nOn the leaderboard of %s you are %s: the leaderboard names no one, and only you are told yours.\n", Escape(g.leaderboardID), CodeSpan(p))
	}
	if g.EmptyHandIn(s) {
		fmt.Fprintf(&b, "\n%s\n", emptyHandIn)
		return b.String()
	}
	if s.Source == SourceRefused {
		// One reason for every exercise, said once above.
		b.WriteString("\n")
		for _, e := range g.Exercises {
			if c := s.Cells[e.ID]; c != nil && c.Override == nil && c.State == StateGraded {
				fmt.Fprintf(&b, "- %s: %d/%d\n", Escape(e.ID+" "+e.Title), c.Score(), c.MaxPoints)
				continue
			}
			refused := *s
			refused.Source = ""
			return g.Feedback(&refused) // an override or a later run: the full form
		}
		return b.String()
	}
	for _, e := range g.Exercises {
		title := Escape(e.ID + " " + e.Title)
		c := s.Cells[e.ID]
		if c == nil {
			fmt.Fprintf(&b, "\n## %s: not graded\n", title)
			continue
		}
		if c.State == StateNeedsGPU && c.Override == nil {
			// What the grader says of a withheld exercise is for the
			// instructor: the student reads one line.
			fmt.Fprintf(&b, "\n## %s: –/%d, graded later on the GPU\n", title, c.MaxPoints)
			continue
		}
		switch c.State {
		case StateNeedsGPU:
			fmt.Fprintf(&b, "\n## %s: –/%d, graded later on the GPU\n", title, c.MaxPoints)
		case StateError:
			fmt.Fprintf(&b, "\n## %s: –/%d, not graded: the grader could not run it\n", title, c.MaxPoints)
		case StateWithheld:
			fmt.Fprintf(&b, "\n## %s: –/%d, withheld: the hand-in has no CUDA file\n", title, c.MaxPoints)
		default:
			fmt.Fprintf(&b, "\n## %s: %d/%d\n", title, c.Score(), c.MaxPoints)
		}
		if c.Override != nil {
			fmt.Fprintf(&b, "\nOverride by the instructor: %d/%d instead of %d. %s\n", c.Override.Points, c.MaxPoints, c.Override.Was, Escape(c.Override.Reason))
		}
		if c.Result == nil {
			continue
		}
		r := c.Result
		if r.Status != grading.Graded {
			fmt.Fprintf(&b, "\nStatus: %s.\n", Escape(string(r.Status)))
			if strings.TrimSpace(r.Message) != "" {
				fmt.Fprintf(&b, "\n%s", CodeBlock(r.Message))
			}
		}
		if len(r.Checks) > 0 {
			b.WriteString("\n| check | points | result |\n| --- | --- | --- |\n")
		}
		for _, ch := range r.Checks {
			msg := cellText(ch.Message)
			if ch.Passed {
				msg = "ok: " + Escape(ch.Title)
			}
			hidden := ""
			if ch.Hidden {
				hidden = " (hidden)"
			}
			fmt.Fprintf(&b, "| %s%s | %d/%d | %s |\n", Escape(ch.ID), hidden, ch.Points, ch.MaxPoints, msg)
		}
		fmt.Fprintf(&b, "\nSeed %d.\n", c.Seed)
	}
	return b.String()
}

// emptyHandIn is the feedback of a hand-in that holds nothing to grade.
const emptyHandIn = "Nothing to grade was found in this hand-in: none of the exercises' files " +
	"(exercises/ID/FILE, or ID/FILE at the top of the folder) and no exercises' notebook. " +
	"Every exercise scores 0. Check that you handed in the right folder, with the files you edited."

// EmptyHandIn reports whether the student's hand-in held nothing to
// grade: every cell graded as missing (or withheld for the GPU), at least
// one missing, and no override.
func (g *Book) EmptyHandIn(s *Student) bool {
	missing := 0
	for _, e := range g.Exercises {
		c := s.Cells[e.ID]
		if c == nil || c.Override != nil || c.Result == nil {
			return false
		}
		switch {
		case c.State == StateNeedsGPU || c.State == StateWithheld:
		case c.State == StateGraded && c.Result.Status == grading.Missing:
			missing++
		default:
			return false
		}
	}
	return missing > 0
}
