package lab

import (
	"fmt"
	"slices"
	"strings"
)

// MaxSuggestDistance is the largest edit distance at which Suggest offers
// a name: two typed characters wrong, missing or extra.
const MaxSuggestDistance = 2

// Suggest returns the names among known nearest to name, for a "did you
// mean" after a mistyped one: those within MaxSuggestDistance edits
// (insertions, deletions, substitutions, ignoring case), or, failing that,
// those that name is a prefix of or that are a prefix of name, at least
// three characters long. None for an exact match or an empty name.
func Suggest(name string, known []string) []string {
	if name == "" || slices.Contains(known, name) {
		return nil
	}
	low := strings.ToLower(name)
	best, out := MaxSuggestDistance+1, []string(nil)
	for _, k := range known {
		d := editDistance(low, strings.ToLower(k))
		switch {
		case d < best:
			best, out = d, []string{k}
		case d == best && !slices.Contains(out, k):
			out = append(out, k)
		}
	}
	if out != nil {
		return out
	}
	if len(low) < 3 {
		return nil
	}
	for _, k := range known {
		lk := strings.ToLower(k)
		if (strings.HasPrefix(lk, low) || strings.HasPrefix(low, lk)) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// DidYouMean formats Suggest's names as ` (did you mean "tiled"?)`, or
// ` (did you mean "tiled" or "basic"?)`; empty when none is near.
func DidYouMean(name string, known []string) string {
	s := Suggest(name, known)
	if len(s) == 0 {
		return ""
	}
	q := make([]string, len(s))
	for i, n := range s {
		q[i] = fmt.Sprintf("%q", n)
	}
	return " (did you mean " + strings.Join(q, " or ") + "?)"
}

// StepNames returns every name a step can be looked up by: the names of
// the registered steps and their aliases, and the broken kernels of the 3D
// steps.
func StepNames() []string {
	var ns []string
	for _, s := range Steps() {
		ns = append(ns, s.Name)
		ns = append(ns, s.Aliases...)
	}
	for _, b := range BrokenKernels() {
		ns = append(ns, b.Name)
	}
	return ns
}

// editDistance is the Levenshtein distance between a and b, by runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
