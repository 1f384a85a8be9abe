package gradebook

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Person is a student as the roster names them: the hand-in folder's id
// and what a learning-management system knows them by.
type Person struct {
	ID      string `json:"id"`                // the hand-in folder's name
	Name    string `json:"name,omitempty"`    // full name, any script
	Email   string `json:"email,omitempty"`   // as the LMS has it (Moodle compares it case-sensitively)
	SISID   string `json:"sis_id,omitempty"`  // the student information system's id (Canvas SIS User ID, Moodle ID number)
	Login   string `json:"login,omitempty"`   // Canvas SIS Login ID; the email when the roster has none
	Section string `json:"section,omitempty"` // course section
}

// LoginID is the person's SIS login: Login, or the email when the roster
// gives none.
func (p *Person) LoginID() string {
	if p.Login != "" {
		return p.Login
	}
	return p.Email
}

// Roster maps hand-in folders to people.
type Roster struct {
	People []*Person          // in the roster's order
	byID   map[string]*Person // by the folder's id, folded (FoldName)
	// byName holds each person under the folded id and the folded
	// email: the names a hand-in folder of theirs may have.
	byName map[string]*Person
}

// FoldName is the key under which two names are one: Unicode's NFKC
// normalisation, case folding, and NFKC again (folding may undo it).
// "Alice", "alice" and "ＡＬＩＣＥ" fold alike, and so do "José" written
// with one code point or with a combining accent.
func FoldName(s string) string {
	return norm.NFKC.String(cases.Fold().String(norm.NFKC.String(s)))
}

// Match returns the person a hand-in folder named name belongs to: the
// one whose id or email folds (FoldName) to what name folds to, or nil.
// The roster refuses two people under one folded name, so that the match
// is unique.
func (r *Roster) Match(name string) *Person {
	if r == nil {
		return nil
	}
	return r.byName[FoldName(name)]
}

// Roster limits.
const (
	// MaxRosterBytes bounds a roster file.
	MaxRosterBytes = 8 << 20
	// MaxRosterRows bounds the students of a roster.
	MaxRosterRows = 100000
	// maxRosterField bounds one field of a roster.
	maxRosterField = 256
)

// rosterColumns are the columns a roster may have after the first (the
// folder's id), by their names in the header, compared without case,
// spaces, '_' and '-'.
var rosterColumns = map[string]string{
	"name": "name", "fullname": "name", "studentname": "name", "student": "name",
	"email": "email", "emailaddress": "email", "mail": "email",
	"sisid": "sis_id", "sisuserid": "sis_id", "idnumber": "sis_id", "studentnumber": "sis_id",
	"sislogin": "login", "sisloginid": "login", "login": "login",
	"section": "section",
}

// idColumns are the names the first column, the hand-in folder's id, may
// have, compared as columnKey does.
var idColumns = map[string]bool{"id": true, "folder": true}

func columnKey(h string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, strings.TrimSpace(h))
}

// ReadRosterFile reads the roster at path (see ReadRoster).
func ReadRosterFile(path string) (*Roster, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("roster: %w", err)
	}
	defer f.Close()
	r, err := ReadRoster(f)
	if err != nil {
		return nil, fmt.Errorf("roster %s: %w", path, err)
	}
	return r, nil
}

// ReadRoster reads a roster: a CSV file with a header, whose first column
// is the hand-in folder's id (named id or folder: a roster without it is
// refused) and whose other columns are any of name,
// email, SIS id, SIS login and section, in any order (named as in
// rosterColumns; an unknown column is an error, so that a column meant to
// be read is never silently dropped). An id is a plain id or an email
// address (see ValidID); every field is UTF-8 text without control
// characters, at most 256 bytes. A UTF-8 byte-order mark is allowed.
func ReadRoster(in io.Reader) (*Roster, error) {
	b, err := io.ReadAll(io.LimitReader(in, MaxRosterBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxRosterBytes {
		return nil, fmt.Errorf("more than the %d bytes a roster may have", MaxRosterBytes)
	}
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	if !utf8.Valid(b) {
		return nil, errors.New("not UTF-8 text: save the roster as UTF-8 CSV")
	}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("empty: a roster needs a header (id, then name, email, sis_id, section in any order)")
	}
	if err != nil {
		return nil, err
	}
	// The first column is the id, and says so: a roster whose first
	// column is the names would make names the ids, and leave every
	// column the LMS matches on empty.
	if k := columnKey(header[0]); !idColumns[k] {
		return nil, fmt.Errorf("header column 1 %s: a roster's first column is the hand-in folder's id, named id", QuoteName(header[0]))
	}
	cols := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header[1:] {
		k, ok := rosterColumns[columnKey(h)]
		if !ok {
			return nil, fmt.Errorf("header column %d %s: not one of name, email, sis_id, login, section", i+2, QuoteName(h))
		}
		if seen[k] {
			return nil, fmt.Errorf("header column %d %s: %s appears twice", i+2, QuoteName(h), k)
		}
		seen[k] = true
		cols[i+1] = k
	}
	r := &Roster{byID: map[string]*Person{}}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(r.People) >= MaxRosterRows {
			return nil, fmt.Errorf("more than the %d students a roster may have", MaxRosterRows)
		}
		p := &Person{}
		for i, v := range rec {
			v = strings.TrimSpace(v)
			if len(v) > maxRosterField {
				return nil, fmt.Errorf("line %d, column %d: %d bytes, above the limit of %d", line, i+1, len(v), maxRosterField)
			}
			if strings.IndexFunc(v, unicode.IsControl) >= 0 {
				return nil, fmt.Errorf("line %d, column %d: a control character", line, i+1)
			}
			switch cols[i] {
			case "":
				p.ID = v
			case "name":
				p.Name = v
			case "email":
				p.Email = v
			case "sis_id":
				p.SISID = v
			case "login":
				p.Login = v
			case "section":
				p.Section = v
			}
		}
		if err := r.add(p); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	return r, nil
}

// NewRoster returns the roster of people, in their order, checked as a
// roster file's rows are.
func NewRoster(people []*Person) (*Roster, error) {
	if len(people) > MaxRosterRows {
		return nil, fmt.Errorf("more than the %d students a roster may have", MaxRosterRows)
	}
	r := &Roster{byID: map[string]*Person{}}
	for i, p := range people {
		if p == nil {
			return nil, fmt.Errorf("person %d: none", i+1)
		}
		if err := r.add(p); err != nil {
			return nil, fmt.Errorf("person %d: %w", i+1, err)
		}
	}
	return r, nil
}

// add appends p to r after checking its id and email, and that no one in
// r has its id.
func (r *Roster) add(p *Person) error {
	if !ValidID(p.ID) {
		return fmt.Errorf("id %s is neither an id (letters, digits, '.', '_', '-') nor an email address", QuoteName(p.ID))
	}
	if p.Email != "" && !EmailID(p.Email) {
		return fmt.Errorf("email %s is not an email address", QuoteName(p.Email))
	}
	key := FoldName(p.ID)
	if r.byID[key] != nil {
		return fmt.Errorf("id %s appears twice (ids are compared without case)", QuoteName(p.ID))
	}
	if r.byName == nil {
		r.byName = map[string]*Person{}
	}
	names := []string{key}
	if p.Email != "" && FoldName(p.Email) != key {
		names = append(names, FoldName(p.Email))
	}
	for _, n := range names {
		if q := r.byName[n]; q != nil {
			return fmt.Errorf("%s is also the id or email of %s: a hand-in folder named so would be either's (names are compared without case)", QuoteName(n), QuoteName(q.ID))
		}
	}
	for _, n := range names {
		r.byName[n] = p
	}
	r.byID[key] = p
	r.People = append(r.People, p)
	return nil
}

// Lookup returns the person whose folder is id, or nil.
func (r *Roster) Lookup(id string) *Person {
	if r == nil {
		return nil
	}
	p := r.byID[FoldName(id)]
	if p == nil || p.ID != id {
		return nil
	}
	return p
}

// Apply sets each student's person from the roster (nil for one it does
// not list) and returns the ids of the roster's people who have no row
// in g (no hand-in) and the ids of the rows it does not list. Two rows
// that claim one person (by id, or by the folder's name) are an error
// naming both: one of them would take the other's row in the LMS.
func (r *Roster) Apply(g *Book) (noHandIn, notListed []string, err error) {
	claimed := map[*Person]string{}
	for _, id := range g.StudentIDs() {
		p := r.Lookup(id)
		if p == nil && g.Students[id].Folder != "" {
			p = r.Lookup(g.Students[id].Folder)
		}
		if p == nil {
			notListed = append(notListed, id)
		} else if other, ok := claimed[p]; ok {
			return nil, nil, fmt.Errorf("the rows %s and %s both claim the roster's %s: resolve which hand-in is theirs, and grade again", QuoteName(other), QuoteName(id), QuoteName(p.ID))
		} else {
			claimed[p] = id
		}
		g.Students[id].Person = p
	}
	for _, p := range r.People {
		if _, ok := claimed[p]; !ok {
			noHandIn = append(noHandIn, p.ID)
		}
	}
	return noHandIn, notListed, nil
}
