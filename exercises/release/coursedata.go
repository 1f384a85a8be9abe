package release

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"stencillab.dev/exercises/gradebook"
)

// Course data is what grading a class makes or reads: the roster, the
// gradebook and its parts, the overrides, the hand-ins, the feedback, the
// leaderboard and the exports for the LMS. None of it may reach the
// students' copy, wherever the instructor left it. The release copies only
// what git tracks (TrackedFiles), and every file it writes, tracked or
// not, must be of a kind a release holds and must not have the shape of
// course data (CourseData); ScanCourseData checks a whole release again,
// and also that it holds nothing the repository does not track.
//
// What a release may hold is an allow-list:
//
//   - files of the kinds in releasedKinds (source, documents, notebooks,
//     the lab's data, figures), or a script that starts with "#!";
//   - notebooks under notebooks/ only, exercises' folders under
//     exercises/ only;
//   - tables (CSV), JSON and Markdown/HTML that name no person and hold no
//     grade;
//   - no e-mail address outside the domains reserved for examples
//     (RFC 2606 and RFC 6761), in any file but program source.
//
// Test fixtures under a folder named testdata (which the go tool never
// builds) and the synthetic samples of SampleCourseData may have the
// shape of course data: they are made-up classes. They may not hold a real
// e-mail address either.

// Kinds of course data.
const (
	DataRoster    = "roster"           // a table of people: ids, names, e-mail addresses
	DataGradebook = "gradebook"        // grades: a gradebook, a part of one, a report, an export
	DataOverrides = "overrides"        // the instructor's overrides of points
	DataHandIn    = "hand-in"          // a student's files
	DataFeedback  = "feedback"         // a feedback file or the leaderboard
	DataAddress   = "personal address" // an e-mail address of a real domain
	DataKind      = "not releasable"   // a kind of file no release holds
	DataUntracked = "untracked"        // a file the repository does not track
)

// ErrCourseData is wrapped by the error of a release that meets course
// data.
var ErrCourseData = errors.New("course data in the release")

// SampleCourseData are the files of the repository, and the folders with
// a trailing slash, that hold synthetic course data: the made-up class of
// five the notebooks show as an example, and its measured grading runs.
var SampleCourseData = []string{"notebooks/data/cuda_class/", "docs/course_gpu.json"}

// sourceKinds are program source: the e-mail rule does not read them (a
// test may hold an address as a literal; a hand-in among them is found by
// its layout and by the solution scan).
var sourceKinds = map[string]bool{
	".go": true, ".s": true, ".cu": true, ".cuh": true, ".c": true, ".cc": true, ".cpp": true,
	".h": true, ".hpp": true, ".py": true, ".sh": true, ".patch": true,
}

// releasedKinds are the file name extensions a release holds: the source
// kinds, and these.
var releasedKinds = func() map[string]bool {
	kinds := map[string]bool{
		".mod": true, ".sum": true,
		".md": true, ".txt": true, ".ipynb": true,
		".json": true, ".csv": true, ".golden": true,
		".png": true, ".svg": true,
		".gitignore": true, ".gitattributes": true,
	}
	maps.Copy(kinds, sourceKinds)
	return kinds
}()

// releasedNames are the file names without a released extension that a
// release holds.
var releasedNames = map[string]bool{"Makefile": true, "LICENSE": true, "README": true}

// exerciseFolder matches an exercise's folder name, NN_topic.
var exerciseFolder = regexp.MustCompile(`^[0-9]{2}_[a-z0-9_]+$`)

// emailAddress matches an e-mail address.
var emailAddress = regexp.MustCompile(`[A-Za-z0-9._%+'-]+@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,63})\b`)

// CourseFinding is a file of a release that holds course data.
type CourseFinding struct {
	File string // relative to the release, with slashes
	Kind string // DataRoster, …
	Why  string // what shows it
}

// String says which file and why.
func (f CourseFinding) String() string {
	return fmt.Sprintf("%s: %s: %s", f.File, f.Kind, f.Why)
}

// isFixture reports whether rel lies in a test fixture folder or in a
// synthetic sample.
func isFixture(rel string) bool {
	for _, s := range SampleCourseData {
		if rel == s || strings.HasSuffix(s, "/") && strings.HasPrefix(rel, s) {
			return true
		}
	}
	return rel == "testdata" || strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/")
}

// CourseData reports whether the file rel (slashes, relative to the
// repository or the release) with contents b is course data, or a kind of
// file a release does not hold, and why.
func CourseData(rel string, b []byte) (CourseFinding, bool) {
	find := func(kind, why string, args ...any) (CourseFinding, bool) {
		return CourseFinding{File: rel, Kind: kind, Why: fmt.Sprintf(why, args...)}, true
	}
	fixture := isFixture(rel)
	dirs := strings.Split(rel, "/")
	base := dirs[len(dirs)-1]
	dirs = dirs[:len(dirs)-1]
	ext := strings.ToLower(path.Ext(base))
	if base == ext {
		ext = base // ".gitignore"
	}
	textual := utf8.Valid(b) && bytes.IndexByte(b[:min(len(b), 8000)], 0) < 0
	if !fixture {
		for i, d := range dirs {
			if d == ".git" {
				return find(DataHandIn, "a git repository inside the release (a hand-in's clone?)")
			}
			if exerciseFolder.MatchString(d) && !(i == 1 && dirs[0] == "exercises") {
				return find(DataHandIn, "an exercise's folder %s outside exercises/, as a hand-in lays it out", d)
			}
		}
		if ext == ".ipynb" && (len(dirs) != 1 || dirs[0] != "notebooks") {
			return find(DataHandIn, "a notebook not in notebooks/ itself, as a hand-in holds one")
		}
	}
	if ext == gradebook.MACSuffix {
		return find(DataGradebook, "a gradebook's MAC under the instructor's key (%s)", base)
	}
	if !fixture && textual && !sourceKinds[ext] {
		// The shapes are looked for whatever the file's name: a roster
		// saved as notes.txt or a gradebook as a .golden file is still one.
		if kind, why, ok := gradesJSON(b); ok {
			return find(kind, "%s", why)
		}
		if kind, why, ok := tableOfPeople(b); ok {
			return find(kind, "%s", why)
		}
		if kind, why, ok := feedbackText(b); ok {
			return find(kind, "%s", why)
		}
	}
	if textual && !sourceKinds[ext] {
		if addr, ok := personalAddress(b); ok {
			return find(DataAddress, "the e-mail address %s (only the domains reserved for examples, such as example.org and .example, may appear)", addr)
		}
	}
	switch {
	case fixture, releasedKinds[ext], releasedNames[base]:
	case textual && bytes.HasPrefix(b, []byte("#!")):
	default:
		return find(DataKind, "a %s file is not among the kinds a release holds (source, documents, notebooks, the lab's JSON and CSV, figures)", kindName(ext))
	}
	return CourseFinding{}, false
}

// kindName names a file's kind by its extension.
func kindName(ext string) string {
	if ext == "" {
		return "extension-less"
	}
	return strings.TrimPrefix(ext, ".")
}

// reservedDomain reports whether an e-mail domain is reserved for
// examples and tests (RFC 2606, RFC 6761): .example, .invalid, .test,
// .localhost and example.com, .net, .org.
func reservedDomain(domain string) bool {
	d := strings.ToLower(strings.TrimSuffix(domain, "."))
	labels := strings.Split(d, ".")
	switch labels[len(labels)-1] {
	case "example", "invalid", "test", "localhost":
		return true
	}
	for _, r := range []string{"example.com", "example.net", "example.org"} {
		if d == r || strings.HasSuffix(d, "."+r) {
			return true
		}
	}
	return false
}

// personalAddress returns the first e-mail address of b whose domain is
// not reserved for examples.
func personalAddress(b []byte) (string, bool) {
	for _, m := range emailAddress.FindAllSubmatch(b, -1) {
		if !reservedDomain(string(m[1])) {
			return string(m[0]), true
		}
	}
	return "", false
}

// identityColumns are the column names, compared without case, spaces,
// '_' and '-', of a table that names people: the roster's, the exports'
// for Canvas and Moodle, the similarity report's and the LMS downloads'.
var identityColumns = map[string]bool{
	"id": true, "student": true, "studentid": true, "studentname": true, "studentnumber": true,
	"name": true, "fullname": true, "firstname": true, "lastname": true, "surname": true,
	"email": true, "emailaddress": true, "mail": true, "user": true, "userid": true, "username": true,
	"login": true, "loginid": true, "sisid": true, "sisuserid": true, "sislogin": true, "sisloginid": true,
	"idnumber": true, "identifier": true, "section": true, "studenta": true, "studentb": true,
	"owner": true, "author": true, "githubusername": true, "rosteridentifier": true,
}

// tableOfPeople reports whether b reads as a table (CSV, or separated by
// ';' or tabs: two records or more, every one with the same fields, two
// or more) that names people or holds grades.
func tableOfPeople(b []byte) (kind, why string, ok bool) {
	for _, sep := range []rune{',', ';', '\t'} {
		recs, good := readTable(b, sep)
		if !good {
			continue
		}
		header := recs[0]
		if numberIn(header) {
			// A header names its columns: a record with a whole number is
			// data, as in the overrides, which need no header.
			return recordsOfPeople(recs)
		}
		exercises := 0
		for _, h := range header {
			k := columnKey(h)
			if exerciseFolder.MatchString(strings.TrimSpace(h)) {
				exercises++
			}
			if identityColumns[k] {
				if g, ok := gradeColumn(recs); ok {
					return DataGradebook, fmt.Sprintf("a table of people, with the column %q, and numbers in the column %q", h, g), true
				}
				return DataRoster, fmt.Sprintf("a table of people, with the column %q", h), true
			}
		}
		if exercises > 0 {
			return DataGradebook, fmt.Sprintf("a table with the exercise %q as a column", strings.TrimSpace(header[exercises-1])), true
		}
		if kind, why, ok := recordsOfPeople(recs); ok {
			return kind, why, ok
		}
	}
	return "", "", false
}

// numberIn reports whether a record has a whole number.
func numberIn(rec []string) bool {
	for _, f := range rec {
		if f = strings.TrimSpace(f); f != "" && strings.Trim(f, "0123456789") == "" {
			return true
		}
	}
	return false
}

// recordsOfPeople reports whether a table's records, read without a
// header, hold an e-mail address (a roster) or an exercise's id beside a
// whole number (points by exercise, as the overrides are).
func recordsOfPeople(recs [][]string) (kind, why string, ok bool) {
	for n, rec := range recs {
		ex := false
		for _, f := range rec {
			f = strings.TrimSpace(f)
			ex = ex || exerciseFolder.MatchString(f)
			if emailAddress.MatchString(f) {
				return DataRoster, fmt.Sprintf("a table with an e-mail address in record %d", n+1), true
			}
		}
		if ex && numberIn(rec) {
			return DataOverrides, fmt.Sprintf("a table of points by exercise (record %d), as the overrides are", n+1), true
		}
	}
	return "", "", false
}

// gradeColumn returns the first column of a table with a header that
// names no identity (identityColumns) and holds a number in a record: the
// points of a gradebook or an export, the score of a similarity report.
func gradeColumn(recs [][]string) (string, bool) {
	for i, h := range recs[0] {
		if identityColumns[columnKey(h)] {
			continue
		}
		for _, rec := range recs[1:] {
			if i < len(rec) {
				if _, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64); err == nil {
					return h, true
				}
			}
		}
	}
	return "", false
}

// readTable reads b as a table separated by sep.
func readTable(b []byte, sep rune) ([][]string, bool) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff"))))
	r.Comma = sep
	r.LazyQuotes = true
	var recs [][]string
	for len(recs) < 10000 {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		recs = append(recs, rec)
	}
	return recs, len(recs) >= 2 && len(recs[0]) >= 2
}

// columnKey is a column's name without case, spaces, '_', '-' and '.'.
func columnKey(h string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' || r == '-' || r == '.' || unicode.IsControl(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
}

// hasColumn reports whether header has one of the columns, by columnKey.
func hasColumn(header []string, names ...string) bool {
	for _, h := range header {
		for _, n := range names {
			if columnKey(h) == n {
				return true
			}
		}
	}
	return false
}

// gradesJSON reports whether b is JSON that holds grades or people: an
// object with "students", one with both "points" and "max_points" (a
// gradebook's cell, a part, grade -json's report), or one with "email" or
// "person".
func gradesJSON(b []byte) (kind, why string, ok bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return "", "", false
	}
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		if depth > 64 {
			return false
		}
		switch v := v.(type) {
		case map[string]any:
			_, students := v["students"]
			_, points := v["points"]
			_, max := v["max_points"]
			_, email := v["email"]
			_, person := v["person"]
			switch {
			case students && (v["runs"] != nil || v["exercises"] != nil):
				kind, why = DataGradebook, `an object with "students" and their runs or exercises, as a gradebook or a part of one has`
			case points && max:
				kind, why = DataGradebook, `an object with "points" and "max_points", as a graded cell or a report has`
			case email, person:
				kind, why = DataRoster, `an object with "email" or "person", as the gradebook's people have`
			}
			if kind != "" {
				return true
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if walk(v[k], depth+1) {
					return true
				}
			}
		case []any:
			for _, e := range v {
				if walk(e, depth+1) {
					return true
				}
			}
		}
		return false
	}
	return kind, why, walk(v, 0)
}

// feedbackLine matches a line of a feedback file or of the leaderboard.
var feedbackLine = regexp.MustCompile(`(?m)^(# Feedback for |<title>Feedback for |<h1>Feedback for |# Leaderboard: |Total: [0-9]+/[0-9]+)`)

// tableHeader matches a Markdown table's header row.
var tableHeader = regexp.MustCompile(`(?m)^\|(.*)\|\s*\n\|[\s:|-]+\|\s*$`)

// feedbackText reports whether b is a feedback file, the leaderboard, or
// a Markdown table with a column of students.
func feedbackText(b []byte) (kind, why string, ok bool) {
	if m := feedbackLine.Find(b); m != nil {
		return DataFeedback, fmt.Sprintf("the line %q, as a feedback file or the leaderboard starts", strings.TrimSpace(string(m))), true
	}
	for _, m := range tableHeader.FindAllSubmatch(b, -1) {
		for _, h := range strings.Split(string(m[1]), "|") {
			switch columnKey(h) {
			case "student", "students", "email", "studentid":
				return DataGradebook, fmt.Sprintf("a table with the column %q", strings.TrimSpace(h)), true
			}
		}
	}
	return "", "", false
}

// refuseCourseData is the release's check of one file it would write.
func refuseCourseData(rel string, b []byte) error {
	if f, ok := CourseData(rel, b); ok {
		return fmt.Errorf("release: %s; a release holds no course data: remove the file from the repository (git rm --cached %s) and keep course data in a folder outside it: %w",
			f, rel, ErrCourseData)
	}
	return nil
}

// ScanCourseData checks every file under root, a release, for course
// data (CourseData), and, when tracked is not nil, that each is one of
// the files it holds (the repository's, by slash path): a file the
// repository does not track is a finding. The release's own .git folder at
// root is not read; links are findings. The findings come sorted by file.
func ScanCourseData(root string, tracked map[string]bool) ([]CourseFinding, error) {
	var out []CourseFinding
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			out = append(out, CourseFinding{File: rel, Kind: DataKind, Why: "a link or a special file: a release holds plain files"})
			return nil
		}
		if tracked != nil && !tracked[rel] {
			out = append(out, CourseFinding{File: rel, Kind: DataUntracked, Why: "not a file the repository tracks"})
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if f, ok := CourseData(rel, b); ok {
			out = append(out, f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("release: scan %s for course data: %w", root, err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, nil
}
