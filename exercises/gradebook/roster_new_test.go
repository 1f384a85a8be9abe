package gradebook

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// NewRoster checks people as a roster file's rows are checked, and a file
// read back gives the same roster.
func TestNewRosterChecksAsAFileDoes(t *testing.T) {
	people := []*Person{
		{ID: "ana", Name: "Ana Ñúñez", Email: "ana@uni.example"},
		{ID: "bo.li@uni.example", Name: "Bo Li"},
	}
	r, err := NewRoster(people)
	require.NoError(t, err)
	assert.Same(t, people[0], r.Lookup("ana"))
	assert.Same(t, people[1], r.Lookup("bo.li@uni.example"))
	assert.Nil(t, r.Lookup("ANA"), "a lookup is by the folder's exact id")

	read, err := ReadRoster(strings.NewReader("id,name,email\nana,Ana Ñúñez,ana@uni.example\nbo.li@uni.example,Bo Li,\n"))
	require.NoError(t, err)
	require.Len(t, read.People, len(r.People))
	for i := range r.People {
		assert.Equal(t, *r.People[i], *read.People[i])
	}

	for name, bad := range map[string][]*Person{
		"id":      {{ID: "a b"}},
		"email":   {{ID: "ana", Email: "not-an-address"}},
		"appears": {{ID: "ana"}, {ID: "ANA"}},
		"none":    {nil},
	} {
		_, err := NewRoster(bad)
		assert.ErrorContains(t, err, name, "%v", bad)
	}
	_, err = ReadRoster(strings.NewReader("id,name\nana,A\nAna,B\n"))
	assert.ErrorContains(t, err, "line 3: id \"Ana\" appears twice")
}
