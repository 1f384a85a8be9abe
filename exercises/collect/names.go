package collect

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"stencillab.dev/exercises/gradebook"
)

// MaxUserName is the longest Linux account name the hub makes.
const MaxUserName = 32

var userNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// UserName is the Linux account of the roster id on the hub: the id, or
// an email address's local part, lower-cased, every character other than
// a-z, 0-9, '_' and '-' made '-', prefixed with "s" when it does not start
// with a letter, at most MaxUserName characters. UserNames checks that no
// two ids share one.
func UserName(id string) string {
	if gradebook.EmailID(id) {
		id = id[:strings.LastIndexByte(id, '@')]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	u := b.String()
	if u == "" || u[0] < 'a' || u[0] > 'z' {
		u = "s" + u
	}
	if len(u) > MaxUserName {
		u = u[:MaxUserName]
	}
	return u
}

// ValidUserName reports whether u is an account name the hub makes.
func ValidUserName(u string) bool { return userNameRE.MatchString(u) }

// UserNames maps each roster id to its account (UserName), and fails
// naming the two ids when two would share one.
func UserNames(r *gradebook.Roster) (map[string]string, error) {
	byUser := map[string]string{}
	out := map[string]string{}
	for _, p := range r.People {
		u := UserName(p.ID)
		if other, ok := byUser[u]; ok {
			return nil, fmt.Errorf("collect: the roster's ids %s and %s would share the account %s: give one of them another id", gradebook.QuoteName(other), gradebook.QuoteName(p.ID), u)
		}
		byUser[u] = p.ID
		out[p.ID] = u
	}
	return out, nil
}

// nameKey folds a name for comparison, whether the LMS kept its accents
// or not: decomposed (NFKD), its marks dropped, lower case, only letters
// (of any script) and digits kept ("O'Brien, Seán" is "obriensean").
func nameKey(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// nameKeys are the keys a roster name is known by: as written, and with
// the last word first (Canvas's sortable name "Last, First" written
// "lastfirst"), or, for "Last, First", first name first.
func nameKeys(name string) []string {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil
	}
	keys := []string{nameKey(name)}
	if i := strings.IndexByte(name, ','); i >= 0 {
		keys = append(keys, nameKey(name[i+1:]+" "+name[:i]))
	} else if f := strings.Fields(name); len(f) > 1 {
		keys = append(keys, nameKey(f[len(f)-1]+" "+strings.Join(f[:len(f)-1], " ")))
	}
	return keys
}

// matcher finds roster rows by a name or a login.
type matcher struct {
	byName  map[string][]string
	byLogin map[string][]string
}

func newMatcher(r *gradebook.Roster) *matcher {
	m := &matcher{byName: map[string][]string{}, byLogin: map[string][]string{}}
	addTo := func(idx map[string][]string, k, id string) {
		if k == "" {
			return
		}
		if !slices.Contains(idx[k], id) {
			idx[k] = append(idx[k], id)
		}
	}
	for _, p := range r.People {
		for _, k := range nameKeys(p.Name) {
			addTo(m.byName, k, p.ID)
		}
		addTo(m.byLogin, gradebook.FoldName(p.ID), p.ID)
		addTo(m.byLogin, gradebook.FoldName(p.Login), p.ID)
	}
	return m
}

// name returns the roster ids whose name folds to the name given.
func (m *matcher) name(n string) []string { return m.byName[nameKey(n)] }

// login returns the roster ids whose id or login is l, folded as the
// grader folds a hand-in folder's name (gradebook.FoldName).
func (m *matcher) login(l string) []string { return m.byLogin[gradebook.FoldName(l)] }
