// Package similarity finds hand-ins whose solution code is near-identical:
// each student's code of an exercise is tokenised (names and whitespace
// normalised, comments dropped, literals folded; package winnowing), its
// winnowed fingerprints are taken less those of the code every student was
// given (the stub), and every pair of students is scored by the share of
// fingerprints they have in common.
package similarity

import (
	"sort"
	"strings"

	"stencillab.dev/exercises/winnowing"
)

// Fingerprinting parameters: a k-gram of K tokens, a window of W k-grams.
// Every run of at least K+W−1 = 15 tokens two hand-ins share gives them a
// fingerprint in common.
const (
	K = 12
	W = 4
)

// MinPrints is the fewest fingerprints of a student's own code for the
// hand-in to be compared: less is too little code to say anything.
const MinPrints = 8

// DefaultThreshold is the score from which a pair is flagged.
const DefaultThreshold = 0.8

// Pair is two students' hand-ins of one exercise and their score: the
// fingerprints they share over those of the smaller of the two (1: one
// holds all of the other's code).
type Pair struct {
	Exercise string
	A, B     string // the students, A < B
	Score    float64
	Shared   int
	Of       int // the smaller hand-in's fingerprints
}

// Source is one student's code of one exercise: its files' texts, and
// whether they are Go (otherwise C-like: CUDA).
type Source struct {
	Text string
	Go   bool
}

// tokens returns the tokens of a text: Go's or C-like.
func (s Source) tokens() []winnowing.Token {
	if s.Go {
		return winnowing.GoTokens(s.Text)
	}
	return winnowing.CTokens(s.Text)
}

// prints returns the fingerprints of a text, less public.
func prints(s Source, public map[uint64]bool) map[uint64]bool {
	set := winnowing.PrintSet(winnowing.Winnow(s.tokens(), K, W))
	for h := range public {
		delete(set, h)
	}
	return set
}

// Compare scores every pair of students of one exercise: code maps each
// student to their code, stub is the code every student was given (its
// k-grams are not evidence). It returns the pairs whose score is at least
// threshold, highest first, and the students whose code was too short to
// compare.
func Compare(exercise string, code map[string]Source, stub Source, threshold float64) (pairs []Pair, skipped []string) {
	public := winnowing.AllHashes(stub.tokens(), K)
	ids := make([]string, 0, len(code))
	for id := range code {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	sets := map[string]map[uint64]bool{}
	var live []string
	for _, id := range ids {
		p := prints(code[id], public)
		if len(p) < MinPrints {
			skipped = append(skipped, id)
			continue
		}
		sets[id] = p
		live = append(live, id)
	}
	for i, a := range live {
		for _, b := range live[i+1:] {
			sa, sb := sets[a], sets[b]
			if len(sb) < len(sa) {
				sa, sb = sb, sa
			}
			shared := 0
			for h := range sa {
				if sb[h] {
					shared++
				}
			}
			score := float64(shared) / float64(len(sa))
			if score >= threshold {
				pairs = append(pairs, Pair{Exercise: exercise, A: a, B: b, Score: score, Shared: shared, Of: len(sa)})
			}
		}
	}
	Sort(pairs)
	return pairs, skipped
}

// Sort orders pairs by score, highest first, then by exercise and names.
func Sort(pairs []Pair) {
	sort.Slice(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Exercise != b.Exercise {
			return a.Exercise < b.Exercise
		}
		return strings.Compare(a.A+"\x00"+a.B, b.A+"\x00"+b.B) < 0
	})
}
