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
// (grade -shard): they must have the same seed and no student in common.
// It returns a gradebook of their students and runs, as one run of the
// whole class would have written.
func MergeParts(parts []*Book) (*Book, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge: no part")
	}
	out := &Book{Version: Version, Students: map[string]*Student{}}
	owner := map[string]int{}
	for i, p := range parts {
		if p.Seed != parts[0].Seed {
			return nil, fmt.Errorf("merge: part %d was graded with seed %d, part 1 with %d: every part needs the same -seed", i+1, p.Seed, parts[0].Seed)
		}
		for id := range p.Students {
			if j, ok := owner[id]; ok {
				return nil, fmt.Errorf("merge: the student %s is in part %d and in part %d", QuoteName(id), j+1, i+1)
			}
			owner[id] = i
		}
		out.Merge(p)
	}
	sort.SliceStable(out.Runs, func(a, b int) bool { return out.Runs[a].Shard < out.Runs[b].Shard })
	return out, nil
}
