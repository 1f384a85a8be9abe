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

// A roster whose first column is not the id is refused: its names would
// become ids, and the LMS's columns would come out empty.
func TestRosterNeedsItsIDColumn(t *testing.T) {
	for _, h := range []string{"name,email\nAna,ana@uni.example\n", "email,id\nana@uni.example,ana\n", "student,sis_id\nana,1\n"} {
		_, err := ReadRoster(strings.NewReader(h))
		require.Error(t, err, h)
		assert.Contains(t, err.Error(), "first column is the hand-in folder's id", h)
	}
	r, err := ReadRoster(strings.NewReader("Folder,name\nana,Ana\n"))
	require.NoError(t, err)
	assert.Equal(t, "ana", r.People[0].ID)
	// One folded name is one person: an email that is another's id, in
	// another case, is refused.
	_, err = ReadRoster(strings.NewReader("id,email\nana@uni.example,x@uni.example\nbo,ANA@uni.example\n"))
	assert.ErrorContains(t, err, "is also the id or email of")
	assert.Equal(t, FoldName("José"), FoldName("JOSE\u0301"), "NFC, NFD and case fold alike")
}
