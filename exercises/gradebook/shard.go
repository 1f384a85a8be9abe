package gradebook

import (
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
)

// MaxShards bounds the parts a class may be split into.
const MaxShards = 10000

// Shard is part Index (from 0) of a class split into Count parts. The
// zero value is the whole class.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n": part i of n, 0 ≤ i < n ≤ MaxShards (a Slurm job
// array's $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT, with the array
// numbered from 0).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("shard %q: not i/n, e.g. 0/4", s)
	case n < 1 || n > MaxShards:
		return Shard{}, fmt.Errorf("shard %q: the count %d is not from 1 to %d", s, n, MaxShards)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("shard %q: the index %d is not from 0 to %d (the parts are numbered from 0)", s, i, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

// String is "i/n", or "" for the whole class.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Has reports whether the student id is in the part: the FNV-1a hash of
// the id, modulo Count, is Index. The split depends on the id alone, so
// that every part agrees on it without seeing the others.
func (s Shard) Has(id string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(s.Count)) == s.Index
}

// MergeParts joins the gradebooks of the parts of a class graded apart
// (grade -shard), named by names (a part's folder, for the messages):
// they must have the same seed and no student in common, and when they
// are shards, every part i/n of one n exactly once: a part missing (a
// failed task of a job array) or given twice is refused, naming it. A
// single part without a shard (the whole class, graded on another
// machine) is merged as it is. It returns a gradebook of their students
// and runs, as one run of the whole class would have written.
func MergeParts(parts []*Book, names []string) (*Book, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge: no part")
	}
	name := func(i int) string {
		if i < len(names) {
			return QuoteName(names[i])
		}
		return fmt.Sprintf("part %d", i+1)
	}
	if err := checkShards(parts, name); err != nil {
		return nil, err
	}
	out := &Book{Version: Version, Students: map[string]*Student{}}
	owner := map[string]int{}
	for i, p := range parts {
		if p.Seed != parts[0].Seed {
			return nil, fmt.Errorf("merge: %s was graded with seed %d, %s with %d: every part needs the same -seed", name(i), p.Seed, name(0), parts[0].Seed)
		}
		for id := range p.Students {
			if j, ok := owner[id]; ok {
				return nil, fmt.Errorf("merge: the student %s is in %s and in %s", QuoteName(id), name(j), name(i))
			}
			owner[id] = i
		}
		out.Merge(p)
	}
	sort.SliceStable(out.Runs, func(a, b int) bool { return out.Runs[a].Shard < out.Runs[b].Shard })
	return out, nil
}

// checkShards refuses parts that are not every shard of one count
// exactly once. A part's shard is that of its latest run.
func checkShards(parts []*Book, name func(int) string) error {
	shards := make([]Shard, len(parts))
	sharded := 0
	for i, p := range parts {
		if len(p.Runs) == 0 {
			return fmt.Errorf("merge: %s records no run of the grader", name(i))
		}
		s := p.Runs[len(p.Runs)-1].Shard
		if s == "" {
			continue
		}
		sh, err := ParseShard(s)
		if err != nil {
			return fmt.Errorf("merge: %s: %w", name(i), err)
		}
		shards[i] = sh
		sharded++
	}
	switch {
	case sharded == 0 && len(parts) == 1:
		return nil
	case sharded == 0:
		return fmt.Errorf("merge: %d parts, none graded with -shard: each would be the whole class", len(parts))
	case sharded < len(parts):
		for i := range parts {
			if shards[i].Count == 0 {
				return fmt.Errorf("merge: %s was graded without -shard, beside parts graded with it", name(i))
			}
		}
	}
	n := shards[0].Count
	seen := make([]int, n)
	for i := range seen {
		seen[i] = -1
	}
	for i, sh := range shards {
		if sh.Count != n {
			return fmt.Errorf("merge: %s is part %s, %s part %s: the parts of one class have one count", name(i), sh, name(0), shards[0])
		}
		if j := seen[sh.Index]; j >= 0 {
			return fmt.Errorf("merge: part %s is given twice, as %s and as %s", sh, name(j), name(i))
		}
		seen[sh.Index] = i
	}
	var missing []string
	for k, j := range seen {
		if j < 0 {
			missing = append(missing, Shard{Index: k, Count: n}.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("merge: part %s of the class is missing (its students would be dropped): grade it, or find its folder", strings.Join(missing, ", "))
	}
	return nil
}
