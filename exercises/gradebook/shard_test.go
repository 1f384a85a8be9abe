package gradebook

import (
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShardsSplitTheClassOnce(t *testing.T) {
	rng := newRand()
	for _, n := range []int{1, 2, 3, 7, 16} {
		counts := make([]int, n)
		for i := range 500 {
			id := fmt.Sprintf("s%d-%d", i, rng.IntN(1000))
			in := 0
			for k := range n {
				if (Shard{Index: k, Count: n}).Has(id) {
					in++
					counts[k]++
					// The part is the FNV-1a hash of the id modulo n.
					h := fnv.New32a()
					h.Write([]byte(id))
					assert.Equal(t, int(h.Sum32()%uint32(n)), k)
				}
			}
			require.Equal(t, 1, in, "%s is in exactly one of %d parts", id, n)
		}
		for k, c := range counts {
			assert.Greater(t, c, 500/n/3, "part %d/%d holds %d of 500", k, n, c)
		}
	}
	for _, c := range []struct {
		in   string
		want Shard
	}{{"0/1", Shard{0, 1}}, {"3/4", Shard{3, 4}}, {" 2/10 ", Shard{2, 10}}} {
		s, err := ParseShard(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, s)
	}
	for _, bad := range []string{"", "1", "4/4", "-1/4", "1/0", "a/b", "1/10001", "1/2/3"} {
		_, err := ParseShard(bad)
		assert.Error(t, err, bad)
	}
}
