package release

import "strings"

// KeepSolutions returns src with the solution blocks for which keep(i)
// holds (the i-th block of the text, from 0) written out, their markers
// and stubs dropped, as a student who wrote those functions has them; the
// other blocks keep their markers, for StripGo or the notebook's
// stripping. It lets a test hand in partly finished work.
func KeepSolutions(src string, keep func(i int) bool) string {
	var out []string
	block, state := -1, ""
	for _, line := range strings.SplitAfter(src, "\n") {
		trim := strings.TrimSpace(line)
		marker := false
		switch {
		case trim == BeginSolution:
			block, state, marker = block+1, "solution", true
		case state == "solution" && trim == EndSolution:
			state, marker = "after", true
		case state == "after" && strings.HasPrefix(trim, BeginStub):
			state, marker = "stub", true
		case state == "stub" && trim == EndStub:
			state, marker = "", true
		}
		if block >= 0 && keep(block) && (marker || state == "stub") {
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "")
}
