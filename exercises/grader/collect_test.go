package grader

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/collect"
)

// docLines returns docs/hub.md's `grade collect` and `grade return`
// commands, split into words (double quotes kept together).
func docLines(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "hub.md"))
	require.NoError(t, err)
	var out [][]string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in || !(strings.HasPrefix(line, "grade collect ") || strings.HasPrefix(line, "grade return ")) {
			continue
		}
		var words []string
		for i, part := range strings.Split(line, `"`) {
			if i%2 == 1 {
				words = append(words, part)
				continue
			}
			words = append(words, strings.Fields(part)...)
		}
		out = append(out, words[1:])
	}
	return out
}

// TestCollectDocLMS runs docs/hub.md's commands that collect from an LMS
// and return the feedback for its upload, on fixtures built to Canvas's
// and Moodle's naming and to GitHub Classroom's, each student's file in
// their own row.
func TestCollectDocLMS(t *testing.T) {
	dir := t.TempDir()
	roster := filepath.Join(dir, "roster.csv")
	require.NoError(t, os.WriteFile(roster, []byte("id,name,email,login\nana,\"López, Ana\",ana@uni.example,ana-gh\nbjorn,Björn Ångström,bjorn@uni.example,bjorn42\n"), 0o600))
	deadline, err := parseDeadline("2026-12-01 12:00")
	require.NoError(t, err)
	mkzip := func(names map[string]string) string {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for n, body := range names {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: deadline.Add(-time.Hour)})
			require.NoError(t, err)
			_, _ = w.Write([]byte(body))
		}
		require.NoError(t, zw.Close())
		p := filepath.Join(dir, "submissions.zip")
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o600))
		return p
	}
	// The same two students, as each LMS names them.
	fixtures := []struct {
		kind  string
		files map[string]string
	}{
		{collect.KindCanvas, map[string]string{
			"lopezana_1001_5001_sine.go":      "package sine // ana",
			"ångströmbjörn_1002_5002_sine.go": "package sine // bjorn",
			"strangerjoe_1003_5003_sine.go":   "package sine // ?",
		}},
		{collect.KindMoodle, map[string]string{
			"Ana López_71_assignsubmission_file_/exercises/01_sine/sine.go": "package sine // ana",
			"Björn Ångström_72_assignsubmission_file_/sine.go":              "package sine // bjorn",
			"Joe Stranger_73_assignsubmission_file_/sine.go":                "package sine // ?",
		}},
	}
	lines := docLines(t)
	var fromLine, classroomLine, returnLine []string
	for _, l := range lines {
		j := strings.Join(l, " ")
		switch {
		case strings.Contains(j, "-from "):
			fromLine = l
		case strings.Contains(j, "-classroom "):
			classroomLine = l
		case l[0] == "return" && strings.Contains(j, "-class "):
			returnLine = l
		}
	}
	require.NotNil(t, fromLine, "docs/hub.md collects from an LMS's zip")
	require.NotNil(t, classroomLine, "docs/hub.md collects a Classroom checkout")
	require.NotNil(t, returnLine, "docs/hub.md returns feedback for the LMS")
	subst := func(l []string, m map[string]string) []string {
		out := append([]string(nil), l...)
		for i, w := range out {
			if r, ok := m[w]; ok {
				out[i] = r
			}
		}
		return out
	}
	check := func(class string, stdout string) {
		for id, mark := range map[string]string{"ana": "// ana", "bjorn": "// bjorn"} {
			b, err := os.ReadFile(filepath.Join(class, id, "exercises", "01_sine", "sine.go"))
			require.NoError(t, err, "%s's row:\n%s", id, stdout)
			assert.Contains(t, string(b), mark, "%s's row holds %s's file", id, id)
		}
		m, err := collect.ReadManifest(class)
		require.NoError(t, err)
		require.Len(t, m.NeedsInstructor, 1, "the stranger: %v", m.NeedsInstructor)
		assert.Contains(t, stdout, "needs the instructor")
	}
	for _, fx := range fixtures {
		t.Run(fx.kind, func(t *testing.T) {
			zipPath := mkzip(fx.files)
			class := filepath.Join(t.TempDir(), "class")
			var stdout, stderr bytes.Buffer
			args := subst(fromLine, map[string]string{"submissions.zip": zipPath, "roster.csv": roster, "class-week1": class})
			require.Equal(t, 0, Run(args, &stdout, &stderr), "grade %s: %s", strings.Join(args, " "), stderr.String())
			check(class, stdout.String())
			m, err := collect.ReadManifest(class)
			require.NoError(t, err)
			assert.Equal(t, fx.kind, m.Kind)

			// The feedback, laid out for the LMS's upload.
			book := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(book, "feedback"), 0o755))
			for _, id := range []string{"ana", "bjorn"} {
				require.NoError(t, os.WriteFile(filepath.Join(book, "feedback", id+".html"), []byte("<p>"+id+"</p>"), 0o644))
			}
			out := filepath.Join(t.TempDir(), "feedback.zip")
			args = subst(returnLine, map[string]string{"gradebook-week1": book, "class-week1": class, "feedback-week1.zip": out})
			stdout.Reset()
			require.Equal(t, 0, Run(args, &stdout, &stderr), "grade %s: %s", strings.Join(args, " "), stderr.String())
			zr, err := zip.OpenReader(out)
			require.NoError(t, err)
			defer zr.Close()
			got := map[string]string{}
			for _, f := range zr.File {
				rc, err := f.Open()
				require.NoError(t, err)
				var b bytes.Buffer
				_, _ = b.ReadFrom(rc)
				rc.Close()
				got[f.Name] = b.String()
			}
			// Each file is named with the prefix the student's submission
			// came with, and holds that student's feedback.
			for name, body := range fx.files {
				for _, id := range []string{"ana", "bjorn"} {
					if !strings.Contains(body, "// "+id) {
						continue
					}
					prefix := name
					if i := strings.Index(name, "_assignsubmission_file_"); i >= 0 {
						prefix = name[:i] + "_assignsubmission_file_"
					} else {
						prefix = strings.TrimSuffix(name, "sine.go")
					}
					assert.Equal(t, "<p>"+id+"</p>", got[prefix+"feedback.html"], "%s: %v", id, got)
				}
			}
			assert.Len(t, got, 2)
		})
	}
	t.Run(collect.KindClassroom, func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("needs git")
		}
		checkout := filepath.Join(t.TempDir(), "week1-submissions")
		for repo, body := range map[string]string{"week1-ana-gh": "package sine // ana", "week1-bjorn42": "package sine // bjorn", "week1-stranger": "package sine // ?"} {
			root := filepath.Join(checkout, repo)
			require.NoError(t, os.MkdirAll(filepath.Join(root, "exercises", "01_sine"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "exercises", "01_sine", "sine.go"), []byte(body), 0o644))
			date := deadline.Add(-time.Hour).Format(time.RFC3339)
			for _, a := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=s", "-c", "user.email=s@x", "commit", "-q", "-m", "w"}} {
				c := exec.Command("git", a...)
				c.Dir = root
				c.Env = append(os.Environ(), "GIT_COMMITTER_DATE="+date, "GIT_AUTHOR_DATE="+date)
				out, err := c.CombinedOutput()
				require.NoError(t, err, string(out))
			}
		}
		class := filepath.Join(t.TempDir(), "class")
		var stdout, stderr bytes.Buffer
		args := subst(classroomLine, map[string]string{"week1-submissions": checkout, "roster.csv": roster, "class-week1": class})
		require.Equal(t, 0, Run(args, &stdout, &stderr), "grade %s: %s", strings.Join(args, " "), stderr.String())
		check(class, stdout.String())
	})
}

// TestCollectFlags refuses a collection without its source, roster,
// deadline or folder, or with two sources.
func TestCollectFlags(t *testing.T) {
	for _, args := range [][]string{
		{"collect", "-roster", "r.csv", "-deadline", "2026-12-01 12:00", "-out", "c"},
		{"collect", "-hub", "/home", "-from", "x.zip", "-roster", "r.csv", "-deadline", "2026-12-01 12:00", "-out", "c"},
		{"collect", "-hub", "/home", "-roster", "r.csv", "-deadline", "tomorrow", "-out", "c"},
		{"return", "-gradebook", "g"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, Run(args, &stdout, &stderr), "%v", args)
	}
}

// FuzzParseDeadline: no panic, and a deadline read is one that formats
// back to itself in one of the two forms.
func FuzzParseDeadline(f *testing.F) {
	f.Add("2026-12-01 12:00")
	f.Add("2026-12-01T12:00:00+01:00")
	f.Add("tomorrow")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDeadline(s)
		if err != nil {
			return
		}
		if d.IsZero() {
			t.Fatalf("%q read as the zero time", s)
		}
	})
}
