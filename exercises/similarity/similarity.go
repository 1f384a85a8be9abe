// Package similarity finds hand-ins whose solution code is near-identical:
// each student's code of an exercise is read as a normalised token stream
// (package winnowing: Go after go/scanner's semicolon insertion, every
// semicolon one token; CUDA after the preprocessor's line splicing and
// comment removal; identifiers renamed to placeholders in each k-gram,
// literals folded), its winnowed fingerprints are taken less those of the
// code every student was given (the stub, as MOSS's base file) and less
// those that many hand-ins hold (CommonLimit, as MOSS's -m), and every
// pair of students is scored by the share of fingerprints they have in
// common. Clusters groups the flagged pairs into rings of copies.
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

// MinCommon is the least CommonLimit.
const MinCommon = 10

// CommonLimit is the most hand-ins of n that may hold a fingerprint for
// it to count as evidence: one held by more is an idiom of the class or
// code handed out, not a copy (MOSS's -m, 10 by default). It is the larger
// of MinCommon and a tenth of the class.
func CommonLimit(n int) int { return max(MinCommon, n/10) }

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
	held := map[uint64]int{}
	for _, id := range ids {
		sets[id] = prints(code[id], public)
		for h := range sets[id] {
			held[h]++
		}
	}
	limit := CommonLimit(len(ids))
	var live []string
	for _, id := range ids {
		p := sets[id]
		for h := range p {
			if held[h] > limit {
				delete(p, h)
			}
		}
		if len(p) < MinPrints {
			skipped = append(skipped, id)
			delete(sets, id)
			continue
		}
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

// Cluster is a ring of copies: the students of one exercise joined by
// flagged pairs, directly or through others.
type Cluster struct {
	Exercise string
	Students []string // sorted
	Pairs    int      // the flagged pairs among them
	MaxScore float64
}

// Clusters groups the pairs of each exercise into connected rings,
// largest first, then by exercise and first student.
func Clusters(pairs []Pair) []Cluster {
	parent := map[string]string{}
	var find func(x string) string
	find = func(x string) string {
		if parent[x] == x {
			return x
		}
		r := find(parent[x])
		parent[x] = r
		return r
	}
	key := func(ex, s string) string { return ex + "\x00" + s }
	for _, p := range pairs {
		for _, s := range []string{p.A, p.B} {
			if _, ok := parent[key(p.Exercise, s)]; !ok {
				parent[key(p.Exercise, s)] = key(p.Exercise, s)
			}
		}
		a, b := find(key(p.Exercise, p.A)), find(key(p.Exercise, p.B))
		if a != b {
			parent[a] = b
		}
	}
	byRoot := map[string]*Cluster{}
	for k := range parent {
		r := find(k)
		c := byRoot[r]
		if c == nil {
			ex, _, _ := strings.Cut(k, "\x00")
			c = &Cluster{Exercise: ex}
			byRoot[r] = c
		}
		_, s, _ := strings.Cut(k, "\x00")
		c.Students = append(c.Students, s)
	}
	for _, p := range pairs {
		c := byRoot[find(key(p.Exercise, p.A))]
		c.Pairs++
		c.MaxScore = max(c.MaxScore, p.Score)
	}
	out := make([]Cluster, 0, len(byRoot))
	for _, c := range byRoot {
		sort.Strings(c.Students)
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if len(a.Students) != len(b.Students) {
			return len(a.Students) > len(b.Students)
		}
		if a.Exercise != b.Exercise {
			return a.Exercise < b.Exercise
		}
		return a.Students[0] < b.Students[0]
	})
	return out
}

// Quality returns the precision (the share of flagged pairs that are
// copies) and the recall (the share of copies flagged) of flagged, given
// the pairs that are copies (each named "exercise", A, B with A < B).
// With nothing flagged the precision is 1; with no copy the recall is 1.
func Quality(flagged []Pair, copies map[[3]string]bool) (precision, recall float64) {
	tp := 0
	for _, p := range flagged {
		if copies[[3]string{p.Exercise, p.A, p.B}] {
			tp++
		}
	}
	precision, recall = 1, 1
	if len(flagged) > 0 {
		precision = float64(tp) / float64(len(flagged))
	}
	if len(copies) > 0 {
		recall = float64(tp) / float64(len(copies))
	}
	return precision, recall
}
