package collect

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
)

// exs are two exercises of the fixtures, shaped as the catalogue's.
var exs = []grading.Exercise{
	{ID: "01_sine", Files: []string{"sine.go"}},
	{ID: "03_five_point", Files: []string{"fivepoint.go"}},
}

func roster(t *testing.T) *gradebook.Roster {
	t.Helper()
	r, err := gradebook.ReadRoster(strings.NewReader(`id,name,email,login
ana,"López, Ana",ana@uni.example,ana-gh
bjorn,Björn Ångström,bjorn@uni.example,bjorn42
chloe.m@uni.example,Chloé Martin,chloe.m@uni.example,chloem
kim1,Kim Lee,kim1@uni.example,kimlee
kim2,Kim Lee,kim2@uni.example,kimlee2
`))
	require.NoError(t, err)
	return r
}

var deadline = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func opts(t *testing.T) Options {
	return Options{Exercises: exs, Deadline: deadline, Out: filepath.Join(t.TempDir(), "class"),
		Now: func() time.Time { return deadline.Add(time.Minute) }}
}

type entry struct {
	name string
	body []byte
	mod  time.Time
	mode os.FileMode
}

func zipOf(t *testing.T, es []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: e.mod}
		if e.mod.IsZero() {
			h.Modified = deadline.Add(-time.Hour)
		}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		_, err = w.Write(e.body)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func issueFor(m *Manifest, entry string) *Issue {
	for i := range m.NeedsInstructor {
		if m.NeedsInstructor[i].Entry == entry {
			return &m.NeedsInstructor[i]
		}
	}
	return nil
}

func hand(m *Manifest, id string) *Hand {
	for _, h := range m.Students {
		if h.ID == id {
			return h
		}
	}
	return nil
}

func TestUserName(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{"ana", "ana"}, {"Ana.Lopez@uni.example", "ana-lopez"}, {"1001", "s1001"},
		{"_x", "s_x"}, {strings.Repeat("a", 40), strings.Repeat("a", 32)},
	} {
		got := UserName(c.id)
		assert.Equal(t, c.want, got, c.id)
		assert.True(t, ValidUserName(got), got)
	}
	r, err := gradebook.ReadRoster(strings.NewReader("id\nana.b\nana_b@x.example\nana-b\n"))
	require.NoError(t, err)
	_, err = UserNames(r)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ana-b")
}

// TestCanvas collects a download built to Canvas's naming: the sortable
// name without punctuation, LATE, the user id and the attachment id, a
// resubmitted file's "-1", a zip the student uploaded.
func TestCanvas(t *testing.T) {
	sineAna := []byte("package sine // ana\n")
	fiveAna := []byte("package fivepoint // ana\n")
	sineBjorn := []byte("package sine // bjorn\n")
	nested := zipOf(t, []entry{{name: "stencil-lab/exercises/01_sine/sine.go", body: []byte("package sine // chloe\n")}, {name: "stencil-lab/README.md", body: []byte("x")}})
	raw := zipOf(t, []entry{
		{name: "lopezana_1001_5001_sine.go", body: sineAna},
		{name: "lopezana_1001_5002_fivepoint-1.go", body: fiveAna},
		{name: "lopezana_1001_5003_notes.txt", body: []byte("ignored")},
		{name: "ångströmbjörn_1002_5004_sine.go", body: sineBjorn},
		{name: "martinchloé_1003_5005_handin.zip", body: nested},
		{name: "leekim_1004_5006_sine.go", body: []byte("package sine")},
		{name: "doejohn_1005_5007_sine.go", body: []byte("package sine")},
		{name: "anon_1006_5008_sine.go", body: []byte("package sine")},
		{name: "lopezana_LATE_1001_5009_sine.go", body: sineAna},
	})
	o := opts(t)
	m, err := FromZip(bytes.NewReader(raw), int64(len(raw)), "submissions.zip", roster(t), o)
	require.NoError(t, err)
	assert.Equal(t, KindCanvas, m.Kind)

	// Ana's two entries share a user id but one is LATE and names the
	// same file: both are her submission, marked late and set aside.
	a := hand(m, "ana")
	require.NotNil(t, a)
	assert.True(t, a.Late)
	assert.NotNil(t, issueFor(m, "lopezana_1001"))

	b := hand(m, "bjorn")
	require.NotNil(t, b)
	assert.False(t, b.Late)
	require.Len(t, b.Files, 1)
	assert.Equal(t, "exercises/01_sine/sine.go", b.Files[0].Path)
	assert.Equal(t, sum(sineBjorn), b.Files[0].SHA256)
	assert.Equal(t, "ångströmbjörn_1002_5004_", b.Prefix)
	got, err := os.ReadFile(filepath.Join(o.Out, "bjorn", "exercises", "01_sine", "sine.go"))
	require.NoError(t, err)
	assert.Equal(t, sineBjorn, got)

	c := hand(m, "chloe.m@uni.example")
	require.NotNil(t, c, "the zip Chloé uploaded is read")
	assert.Equal(t, "exercises/01_sine/sine.go", c.Files[0].Path)

	kim := issueFor(m, "leekim_1004")
	require.NotNil(t, kim)
	assert.ElementsMatch(t, []string{"kim1", "kim2"}, kim.Candidates)
	assert.NotNil(t, issueFor(m, "doejohn_1005"), "unknown")
	assert.NotNil(t, issueFor(m, "anon_1006"), "anonymous")
	assert.ElementsMatch(t, []string{"kim1", "kim2"}, m.NoHandIn)

	bad, err := Verify(o.Out)
	require.NoError(t, err)
	assert.Empty(t, bad)
}

// TestCanvasOnTime checks that a file of Ana uploaded again is taken
// under its name without the "-1", and that her row is graded.
func TestCanvasOnTime(t *testing.T) {
	five := []byte("package fivepoint // v2\n")
	raw := zipOf(t, []entry{
		{name: "lopezana_1001_5001_sine.go", body: []byte("package sine")},
		{name: "lopezana_1001_5002_fivepoint-1.go", body: five},
	})
	o := opts(t)
	m, err := FromCanvas(bytes.NewReader(raw), int64(len(raw)), "s.zip", roster(t), o)
	require.NoError(t, err)
	a := hand(m, "ana")
	require.NotNil(t, a)
	require.Len(t, a.Files, 2)
	assert.Equal(t, "exercises/03_five_point/fivepoint.go", a.Files[1].Path)
	assert.Equal(t, sum(five), a.Files[1].SHA256)
	assert.Empty(t, m.NeedsInstructor)
}

// TestMoodle collects both of Moodle's layouts: in folders, and flat.
func TestMoodle(t *testing.T) {
	sine := []byte("package sine // bjorn\n")
	raw := zipOf(t, []entry{
		{name: "Björn Ångström_88001_assignsubmission_file_/stencil-lab/exercises/01_sine/sine.go", body: sine},
		{name: "Björn Ångström_88001_assignsubmission_onlinetext_/onlinetext.html", body: []byte("<p>hi</p>")},
		{name: "Ana López_88002_assignsubmission_file_/09_exercises.ipynb", body: []byte(`{"cells":[]}`)},
		{name: "Chloé Martin_88003_assignsubmission_file_sine.go", body: []byte("package sine"), mod: deadline.Add(time.Hour)},
		{name: "Kim Lee_88004_assignsubmission_file_/sine.go", body: []byte("package sine")},
		{name: "Nobody Here_88005_assignsubmission_file_/sine.go", body: []byte("package sine")},
	})
	o := opts(t)
	m, err := FromZip(bytes.NewReader(raw), int64(len(raw)), "moodle.zip", roster(t), o)
	require.NoError(t, err)
	assert.Equal(t, KindMoodle, m.Kind)
	b := hand(m, "bjorn")
	require.NotNil(t, b)
	require.Len(t, b.Files, 1)
	assert.Equal(t, sum(sine), b.Files[0].SHA256)
	assert.Equal(t, "Björn Ångström_88001_assignsubmission_file_", b.Prefix)
	a := hand(m, "ana")
	require.NotNil(t, a, "Ana López is the roster's \"López, Ana\"")
	assert.True(t, a.Notebook)
	_, err = os.Stat(filepath.Join(o.Out, "ana", "09_exercises.ipynb"))
	require.NoError(t, err)
	c := hand(m, "chloe.m@uni.example")
	require.NotNil(t, c)
	assert.True(t, c.Late, "changed after the deadline")
	_, err = os.Stat(filepath.Join(o.Out, LateDir, "chloe.m@uni.example", "exercises", "01_sine", "sine.go"))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(o.Out, "chloe.m@uni.example"))
	assert.True(t, os.IsNotExist(err), "a late hand-in is not graded")
	assert.NotNil(t, issueFor(m, "Kim Lee_88004"))
	assert.NotNil(t, issueFor(m, "Nobody Here_88005"))

	var fz bytes.Buffer
	require.NoError(t, os.MkdirAll(filepath.Join(t.TempDir(), "g"), 0o755))
	gb := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(gb, "feedback"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(gb, "feedback", "bjorn.html"), []byte("<p>bjorn</p>"), 0o644))
	n, err := FeedbackZip(gb, m, &fz)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	zr, err := zip.NewReader(bytes.NewReader(fz.Bytes()), int64(fz.Len()))
	require.NoError(t, err)
	require.Len(t, zr.File, 1)
	// Moodle's importer splits the name on '_' into five parts: the
	// participant's id is the second, the file's name the fifth.
	parts := strings.SplitN(zr.File[0].Name, "_", 5)
	require.Len(t, parts, 5)
	assert.Equal(t, "88001", parts[1])
	assert.Equal(t, "feedback.html", parts[4])
}

// TestHostileZip: traversal, absolute names, links, a bomb and an
// oversize file are refused, the rest is collected.
func TestHostileZip(t *testing.T) {
	bomb := bytes.Repeat([]byte{'a'}, MaxSourceBytes+10)
	raw := zipOf(t, []entry{
		{name: "lopezana_1001_5001_../../etc/passwd", body: []byte("x")},
		{name: "../lopezana_1001_5002_sine.go", body: []byte("x")},
		{name: "/abs_1_2_sine.go", body: []byte("x")},
		{name: "ångströmbjörn_1002_5003_sine.go", body: []byte("/etc/passwd"), mode: os.ModeSymlink | 0o777},
		{name: "martinchloé_1003_5004_sine.go", body: bomb},
		{name: "lopezana_1001_5005_sine.go", body: []byte("package sine")},
	})
	o := opts(t)
	m, err := FromCanvas(bytes.NewReader(raw), int64(len(raw)), "s.zip", roster(t), o)
	require.NoError(t, err)
	require.NotNil(t, hand(m, "ana"))
	assert.Nil(t, hand(m, "bjorn"), "a link is never written")
	assert.Nil(t, hand(m, "chloe.m@uni.example"), "an oversize file is never written")
	var reasons []string
	for _, is := range m.NeedsInstructor {
		reasons = append(reasons, is.Reason)
	}
	all := strings.Join(reasons, "\n")
	assert.Contains(t, all, "leaves its folder")
	assert.Contains(t, all, "absolute")
	assert.Contains(t, all, "symbolic link")
	assert.Contains(t, all, "above the limit")
	// Nothing was written outside the class folder.
	_, err = os.Stat(filepath.Join(filepath.Dir(o.Out), "etc"))
	assert.True(t, os.IsNotExist(err))
}

// TestClassroom collects repositories named ASSIGNMENT-LOGIN, the late
// one by its last commit.
func TestClassroom(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := t.TempDir()
	mk := func(name, body string, when time.Time) {
		root := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Join(root, "exercises", "01_sine"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, "exercises", "01_sine", "sine.go"), []byte(body), 0o644))
		date := when.Format(time.RFC3339)
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=s", "-c", "user.email=s@x", "commit", "-q", "-m", "work"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE="+date, "GIT_AUTHOR_DATE="+date)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
		}
	}
	mk("stencil-week1-ana-gh", "package sine // ana\n", deadline.Add(-time.Hour))
	mk("stencil-week1-bjorn42", "package sine // bjorn\n", deadline.Add(time.Hour))
	mk("stencil-week1-stranger", "package sine\n", deadline.Add(-time.Hour))
	mk("stencil-week1-chloem", "", deadline.Add(-time.Hour))
	require.NoError(t, os.Remove(filepath.Join(dir, "stencil-week1-chloem", "exercises", "01_sine", "sine.go")))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "stencil-week1-chloem", "exercises", "01_sine", "sine.go")))
	o := opts(t)
	m, err := FromClassroom(dir, roster(t), o)
	require.NoError(t, err)
	a := hand(m, "ana")
	require.NotNil(t, a)
	assert.False(t, a.Late)
	assert.Equal(t, sum([]byte("package sine // ana\n")), a.Files[0].SHA256)
	b := hand(m, "bjorn")
	require.NotNil(t, b)
	assert.True(t, b.Late)
	assert.NotNil(t, issueFor(m, "stencil-week1-stranger"))
	ch := issueFor(m, "stencil-week1-chloem")
	require.NotNil(t, ch)
	assert.Contains(t, ch.Reason, "symbolic link")
}

// TestFromHub snapshots homes laid out as the hub makes them; a later
// edit changes nothing collected, and Verify sees an edit of the snapshot.
func TestFromHub(t *testing.T) {
	homes := t.TempDir()
	handout := t.TempDir()
	write := func(root, rel, body string, mod time.Time) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		require.NoError(t, os.Chtimes(p, mod, mod))
	}
	before := deadline.Add(-time.Hour)
	write(handout, "exercises/01_sine/sine.go", "stub", before)
	write(handout, "notebooks/09_exercises.ipynb", "{}", before)
	// ana edits the file, bjorn only the notebook, chloe after the deadline.
	write(homes, "ana/stencil-lab/exercises/01_sine/sine.go", "ana's", before)
	write(homes, "ana/stencil-lab/notebooks/09_exercises.ipynb", "{}", before)
	write(homes, "bjorn/stencil-lab/exercises/01_sine/sine.go", "stub", before)
	write(homes, "bjorn/stencil-lab/notebooks/09_exercises.ipynb", `{"cells":1}`, before)
	write(homes, "chloe-m/stencil-lab/exercises/01_sine/sine.go", "late", deadline.Add(time.Minute))
	require.NoError(t, os.MkdirAll(filepath.Join(homes, "kim1", "stencil-lab", "exercises"), 0o755))
	require.NoError(t, os.Symlink("/etc", filepath.Join(homes, "kim1", "stencil-lab", "exercises", "03_five_point")))
	o := opts(t)
	m, err := FromHub(homes, roster(t), HubOptions{Options: o, Handout: handout})
	require.NoError(t, err)
	a := hand(m, "ana")
	require.NotNil(t, a)
	assert.False(t, a.Notebook)
	b := hand(m, "bjorn")
	require.NotNil(t, b)
	assert.True(t, b.Notebook, "bjorn worked in the notebook")
	_, err = os.Stat(filepath.Join(o.Out, "bjorn", "09_exercises.ipynb"))
	require.NoError(t, err)
	c := hand(m, "chloe.m@uni.example")
	require.NotNil(t, c)
	assert.True(t, c.Late)
	require.NotNil(t, issueFor(m, "kim1"))
	assert.Contains(t, issueFor(m, "kim1").Reason, "symbolic link")
	assert.Equal(t, []string{"kim2"}, m.NoHandIn)

	// A later edit in the home changes nothing collected.
	write(homes, "ana/stencil-lab/exercises/01_sine/sine.go", "edited later", deadline.Add(time.Hour))
	got, err := os.ReadFile(filepath.Join(o.Out, "ana", "exercises", "01_sine", "sine.go"))
	require.NoError(t, err)
	assert.Equal(t, "ana's", string(got))
	assert.Equal(t, sum([]byte("ana's")), a.Files[0].SHA256)
	bad, err := Verify(o.Out)
	require.NoError(t, err)
	assert.Empty(t, bad)
	p := filepath.Join(o.Out, "ana", "exercises", "01_sine", "sine.go")
	require.NoError(t, os.Chmod(p, 0o644))
	require.NoError(t, os.WriteFile(p, []byte("tampered"), 0o644))
	bad, err = Verify(o.Out)
	require.NoError(t, err)
	assert.Equal(t, []string{"ana/exercises/01_sine/sine.go: changed since the collection"}, bad)

	// The manifest read back is the one returned.
	back, err := ReadManifest(o.Out)
	require.NoError(t, err)
	assert.Equal(t, len(m.Students), len(back.Students))
	// A second collection into the same folder is refused.
	_, err = FromHub(homes, roster(t), HubOptions{Options: o})
	require.Error(t, err)

	// Feedback lands in the homes, not through a planted link.
	gb := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(gb, "feedback"), 0o755))
	for _, id := range []string{"ana", "bjorn"} {
		require.NoError(t, os.WriteFile(filepath.Join(gb, "feedback", id+".html"), []byte("<p>"+id+"</p>"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(gb, "feedback", id+".md"), []byte(id), 0o644))
	}
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(homes, "bjorn", "feedback")))
	done, err := ReturnToHomes(gb, homes, roster(t))
	require.Error(t, err, "bjorn's ~/feedback is a link out of his home")
	assert.Equal(t, []string{"ana"}, done)
	got, err = os.ReadFile(filepath.Join(homes, "ana", "feedback", "feedback.html"))
	require.NoError(t, err)
	assert.Equal(t, "<p>ana</p>", string(got))
	des, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, des)
}

// FuzzZip feeds arbitrary bytes as a download: no panic, nothing written
// outside the class folder.
func FuzzZip(f *testing.F) {
	f.Add([]byte("PK"))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("lopezana_1001_5001_sine.go")
	_, _ = w.Write([]byte("package sine"))
	w, _ = zw.Create("Ana López_1_assignsubmission_file_/../x")
	_, _ = w.Write([]byte("x"))
	_ = zw.Close()
	f.Add(buf.Bytes())
	r, err := gradebook.ReadRoster(strings.NewReader("id,name\nana,\"López, Ana\"\n"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		base := t.TempDir()
		out := filepath.Join(base, "class")
		_, _ = FromZip(bytes.NewReader(b), int64(len(b)), "f.zip", r, Options{Exercises: exs, Out: out, Deadline: deadline})
		des, err := os.ReadDir(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range des {
			if d.Name() != "class" {
				t.Fatalf("wrote %s outside the class folder", d.Name())
			}
		}
	})
}

// A login or id is found as the grader finds a hand-in folder: folded as
// gradebook.FoldName folds it (case, and Unicode's compatibility forms),
// so that collection and grading agree on who a name is.
func TestLoginsFoldAsTheGraderFolds(t *testing.T) {
	m := newMatcher(roster(t))
	for _, name := range []string{"BJORN42", "ｂｊｏｒｎ42", "Bjorn42"} {
		require.Equal(t, gradebook.FoldName("bjorn42"), gradebook.FoldName(name), "the grader's fold makes them one")
		assert.Equal(t, []string{"bjorn"}, m.login(name), name)
	}
	assert.Equal(t, []string{"chloe.m@uni.example"}, m.login("CHLOE.M@UNI.EXAMPLE"), "an id that is an address")
	assert.Empty(t, m.login("bjorn43"))
}
