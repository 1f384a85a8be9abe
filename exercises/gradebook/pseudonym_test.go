package gradebook

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

var testPseudonymKey = []byte("0123456789abcdef0123456789abcdef")

// A pseudonym is HMAC-SHA256 under the key of "leaderboard\x00"+id: its
// top six bits of the first two bytes pick the words, the next two bytes
// are the hex digits; the same key and id give the same name, another key
// another.
func TestPseudonymIsTheKeyedMAC(t *testing.T) {
	for _, id := range []string{"alice", "bob_example.org-1a2b3c4d", "x"} {
		m := hmac.New(sha256.New, testPseudonymKey)
		m.Write([]byte("leaderboard"))
		m.Write([]byte{0})
		m.Write([]byte(id))
		sum := m.Sum(nil)
		want := fmt.Sprintf("%s-%s-%02x%02x", pseudonymAdjectives[sum[0]/4], pseudonymAnimals[sum[1]/4], sum[2], sum[3])
		got, err := Pseudonym(testPseudonymKey, id)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		again, _ := Pseudonym(testPseudonymKey, id)
		assert.Equal(t, got, again, "stable")
		other, _ := Pseudonym([]byte("another key of thirty-two bytes!"), id)
		assert.NotEqual(t, got, other)
		assert.NotContains(t, got, id)
	}
	_, err := Pseudonym([]byte("short"), "alice")
	assert.ErrorContains(t, err, "at least 16")
}

// The words are distinct, so that a name is two words of the lists.
func TestPseudonymWords(t *testing.T) {
	all := append(pseudonymAdjectives[:], pseudonymAnimals[:]...)
	slices.Sort(all)
	assert.Len(t, slices.Compact(all), 128)
	for _, w := range all {
		assert.Regexp(t, `^[a-z]+$`, w)
	}
}

// Two students whose four-digit pseudonyms collide get longer ones, and
// every other student keeps theirs: the map is one to one.
func TestPseudonymsOneToOne(t *testing.T) {
	seen := map[string]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		id := fmt.Sprintf("s%d", i)
		p, err := Pseudonym(testPseudonymKey, id)
		require.NoError(t, err)
		if o, ok := seen[p]; ok {
			a, b = o, id
		}
		seen[p] = id
		require.Less(t, i, 1<<22, "no collision found")
	}
	g := &Book{Students: map[string]*Student{a: {ID: a}, b: {ID: b}, "carol": {ID: "carol"}}}
	names, err := g.Pseudonyms(testPseudonymKey)
	require.NoError(t, err)
	require.Len(t, names, 3)
	assert.NotEqual(t, names[a], names[b])
	short, _ := Pseudonym(testPseudonymKey, a)
	assert.True(t, strings.HasPrefix(names[a], short) && len(names[a]) > len(short), "%s extends %s", names[a], short)
	carol, _ := Pseudonym(testPseudonymKey, "carol")
	assert.Equal(t, carol, names["carol"])
}

// The leaderboard names no one: no id, name, e-mail address or login of a
// student appears in it, only the pseudonyms, in an order that is not the
// ids'; each student's feedback tells them their own pseudonym and no one
// else's.
func TestLeaderboardShowsPseudonymsOnly(t *testing.T) {
	const id = "25_cuda_challenge"
	g := &Book{Exercises: []Exercise{{ID: id, Title: "Challenge", MaxPoints: 14}}, Students: map[string]*Student{}}
	people := []*Person{
		{ID: "alice.liddell_example.org-0c1d2e3f", Name: "Alice Liddell", Email: "alice.liddell@example.org", Login: "aliddell"},
		{ID: "bob", Name: "Bob Builder", Email: "Bob@Example.ORG"},
		{ID: "carol", Name: "Carol Ann", Email: "carol@uni.example", SISID: "S1234567"},
		{ID: "dave", Name: "Dave", Email: "dave@uni.example"},
	}
	for i, p := range people {
		m := map[string]float64{"pct_copy": float64(30 + 10*i), "ms": 0.5, "correct": float64(i % 2)}
		r := grading.ExerciseResult{ID: id, Points: 14, MaxPoints: 14, Status: grading.Graded, Metrics: m}
		g.Students[p.ID] = &Student{ID: p.ID, Source: "files", Person: p, Cells: map[string]*Cell{id: NewCell(r)}}
	}
	g.Recount()
	g.SetLeaderboard(id, testPseudonymKey)
	md := g.LeaderboardMarkdown(id, "Fastest first.", "ms")
	names, err := g.Pseudonyms(testPseudonymKey)
	require.NoError(t, err)
	for _, p := range people {
		for _, s := range []string{p.ID, p.Name, p.Email, strings.ToLower(p.Email), p.Login, p.SISID, strings.SplitN(p.Email, "@", 2)[0]} {
			if s != "" {
				assert.NotContains(t, strings.ToLower(md), strings.ToLower(s))
			}
		}
		assert.Contains(t, md, "| "+names[p.ID]+" |")
	}
	assert.NotRegexp(t, regexp.MustCompile(`@|\\@`), md, "no address, escaped or not")
	// Ranked: dave (60 %) then bob (40 %); unranked, by pseudonym.
	rows := strings.Split(strings.TrimSpace(md), "\n")
	rows = rows[len(rows)-4:]
	assert.Equal(t, "| 1 | "+names["dave"]+" | 60.0 | 0.500 | yes |", rows[0])
	assert.Equal(t, "| 2 | "+names["bob"]+" | 40.0 | 0.500 | yes |", rows[1])
	un := []string{names["alice.liddell_example.org-0c1d2e3f"], names["carol"]}
	slices.Sort(un)
	assert.True(t, strings.HasPrefix(rows[2], "| — | "+un[0]+" | "), rows[2])
	assert.True(t, strings.HasPrefix(rows[3], "| — | "+un[1]+" | "), rows[3])

	t.Setenv(EnvKey, filepath.Join(t.TempDir(), "instructor.key"))
	out := t.TempDir()
	require.NoError(t, g.Write(out))
	for _, p := range people {
		fb, err := os.ReadFile(filepath.Join(out, "feedback", p.ID+".md"))
		require.NoError(t, err)
		assert.Contains(t, string(fb), "On the leaderboard of 25\\_cuda\\_challenge you are ` "+names[p.ID]+" `")
		page, err := os.ReadFile(filepath.Join(out, "feedback", p.ID+".html"))
		require.NoError(t, err)
		assert.Contains(t, string(page), "you are <code>"+names[p.ID]+"</code>")
		for other, n := range names {
			if other != p.ID {
				assert.NotContains(t, string(fb)+string(page), n, "only one's own pseudonym")
			}
		}
	}
}

// Without a key the leaderboard has no table: no id is written in its
// stead.
func TestLeaderboardWithoutAKey(t *testing.T) {
	t.Setenv(EnvKey, filepath.Join(t.TempDir(), "missing", "dir"))
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(os.Getenv(EnvKey))), nil, 0o600))
	g := &Book{Exercises: []Exercise{{ID: "25_cuda_challenge"}}, Students: map[string]*Student{"alice": {ID: "alice", Cells: map[string]*Cell{}}}}
	md := g.LeaderboardMarkdown("25_cuda_challenge", "", "ms")
	assert.NotContains(t, md, "alice")
	assert.Contains(t, md, "No table")
}
