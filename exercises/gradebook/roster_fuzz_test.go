package gradebook

import (
	"strings"
	"testing"
)

// FuzzReadRoster: a roster never panics; one it reads has valid,
// distinct ids and every field free of control characters.
func FuzzReadRoster(f *testing.F) {
	f.Add(tenRoster)
	f.Add("id,name\na,\"x,y\"\n")
	f.Add("id,sis login id,section\nb@c.de,b,1\n")
	f.Add("0/4")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := ReadRoster(strings.NewReader(in))
		if _, perr := ParseShard(in); perr == nil {
			s, _ := ParseShard(in)
			if s.Index < 0 || s.Index >= s.Count || s.Count > MaxShards {
				t.Fatalf("ParseShard(%q) = %v", in, s)
			}
		}
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, p := range r.People {
			if !ValidID(p.ID) || seen[strings.ToLower(p.ID)] {
				t.Fatalf("id %q", p.ID)
			}
			seen[strings.ToLower(p.ID)] = true
			if r.Lookup(p.ID) != p {
				t.Fatalf("lookup %q", p.ID)
			}
			for _, v := range []string{p.Name, p.Email, p.SISID, p.Login, p.Section} {
				if strings.ContainsAny(v, "\x00\n\r\t") {
					t.Fatalf("field %q", v)
				}
			}
		}
	})
}
