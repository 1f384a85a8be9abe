//go:build browser && hub

package browser

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/collect"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/internal/hub"
	"stencillab.dev/internal/testlimit"
)

// The hub's test: make's hub stage sets hubRequireEnv (after installing
// what it needs), so that a missing piece fails rather than skips.
const hubRequireEnv = "STENCILLAB_REQUIRE_HUB"

// hubLoadEnv, set to a number of students, runs TestHubLoad (a
// measurement, not part of make test).
const hubLoadEnv = "STENCILLAB_HUB_LOAD"

// cleanupBudget bounds the cleanup, which puts the machine back as it was
// even when the test ran out of time (the test's own waits last as long as
// its deadline allows: testlimit.Legit).
const cleanupBudget = 2 * time.Minute

// hubNeed skips (or, under hubRequireEnv, fails) unless the test runs as
// root with JupyterHub, Chromium, bubblewrap and the GoNB kernel's tools.
func hubNeed(t *testing.T) {
	t.Helper()
	skipf := t.Skipf
	if os.Getenv(hubRequireEnv) != "" {
		skipf = t.Fatalf
	}
	if os.Geteuid() != 0 {
		skipf("the hub's test makes Linux accounts: it needs root")
	}
	gopath, _ := exec.Command("go", "env", "GOPATH").Output()
	for _, p := range []struct{ path, what string }{
		{"/usr/bin/jupyterhub", "Debian's jupyterhub (scripts/install-hub.sh)"},
		{"/usr/bin/configurable-http-proxy", "Debian's node-configurable-http-proxy (scripts/install-hub.sh)"},
		{chromiumPath, "Debian's chromium (scripts/install-browser.sh)"},
		{"/usr/bin/bwrap", "bubblewrap, the grader's sandbox (scripts/install-sandbox.sh)"},
		{"/usr/sbin/useradd", "useradd (passwd)"},
		{filepath.Join(strings.TrimSpace(string(gopath)), "bin", "gonb"), "the GoNB kernel (scripts/install-gonb.sh)"},
	} {
		if _, err := os.Stat(p.path); err != nil {
			skipf("the hub's test needs %s: %s is missing", p.what, p.path)
		}
	}
}

// hubRun is a hub the test set up: its folders, its binaries, its
// students.
type hubRun struct {
	root, base, state, shared string
	hubBin, gradeBin          string
	roster                    string
	ids                       []string
	users                     map[string]string // id → account
	passwords                 map[string]string // id → password
	port                      int
	mark                      string
}

// run runs a command of the test, bounded, its output in the failure.
func run(t *testing.T, ctx context.Context, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return string(out)
}

// setupHub builds hub and grade, writes a roster of n students with ids
// fresh to this machine, sets the hub up on a free loopback port and
// starts it. Its cleanup stops the hub, removes the accounts with their
// homes, and puts back what the setup changed, within cleanupBudget.
func setupHub(t *testing.T, ctx context.Context, n int) *hubRun {
	t.Helper()
	h := &hubRun{root: moduleRoot(t), users: map[string]string{}, passwords: map[string]string{}}
	tag := make([]byte, 3)
	_, _ = rand.Read(tag)
	h.mark = hex.EncodeToString(tag)
	var err error
	h.base, err = os.MkdirTemp("", "stencillab-hub-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(h.base, 0o755)) // the shared tools lie below it
	h.state, h.shared = filepath.Join(h.base, "state"), filepath.Join(h.base, "shared")
	h.hubBin, h.gradeBin = filepath.Join(h.base, "hub"), filepath.Join(h.base, "grade")
	run(t, ctx, h.root, nil, "go", "build", "-o", h.hubBin, "./cmd/hub")
	run(t, ctx, h.root, nil, "go", "build", "-o", h.gradeBin, "./cmd/grade")

	var rows strings.Builder
	rows.WriteString("id,name,email\n")
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("hubt%s-%02d", h.mark, i)
		h.ids = append(h.ids, id)
		fmt.Fprintf(&rows, "%s,Student %s %02d,%s@uni.example\n", id, h.mark, i, id)
		h.users[id] = collect.UserName(id)
		_, err := user.Lookup(h.users[id])
		require.Error(t, err, "the account %s exists already", h.users[id])
	}
	h.roster = filepath.Join(h.base, "roster.csv")
	require.NoError(t, os.WriteFile(h.roster, []byte(rows.String()), 0o600))

	// What setup changes on the machine, to put back.
	rootMode, err := os.Stat(h.root)
	require.NoError(t, err)
	_, kernelErr := os.Stat("/usr/local/share/jupyter/kernels/gonb")
	_, shareErr := os.Stat("/usr/local/share/jupyter")
	_, groupErr := user.LookupGroup("stencillab-students")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupBudget)
		defer cancel()
		for _, args := range [][]string{{"stop", "-state", h.state}, {"remove", "-roster", h.roster, "-state", h.state}} {
			out, err := exec.CommandContext(ctx, h.hubBin, args...).CombinedOutput()
			if err != nil {
				t.Errorf("hub %s: %v: %s", args[0], err, out)
			}
		}
		if left := killMarked(h.mark); len(left) > 0 {
			t.Logf("stopped %d processes left behind: %v", len(left), left)
		}
		for _, id := range h.ids {
			if _, err := user.Lookup(h.users[id]); err == nil {
				t.Errorf("the account %s is still there", h.users[id])
			}
		}
		_ = os.Chmod(h.root, rootMode.Mode().Perm())
		if os.IsNotExist(shareErr) {
			_ = os.RemoveAll("/usr/local/share/jupyter")
		} else if os.IsNotExist(kernelErr) {
			_ = os.RemoveAll("/usr/local/share/jupyter/kernels/gonb")
		}
		if groupErr != nil {
			_ = exec.CommandContext(ctx, "groupdel", "stencillab-students").Run()
		}
		_ = os.RemoveAll(h.base)
	})

	gopath, _ := exec.Command("go", "env", "GOPATH").Output()
	env := []string{"PATH=" + filepath.Join(strings.TrimSpace(string(gopath)), "bin") + ":" + os.Getenv("PATH"), runMarkEnv + "=" + h.mark}
	t.Log(run(t, ctx, h.root, env, h.hubBin, "setup", "-roster", h.roster, "-state", h.state, "-shared", h.shared,
		"-ip", "127.0.0.1", "-port", "0", "-mem", "3GiB", "-cpus", "1", "-procs", "512"))
	t.Log(run(t, ctx, h.root, env, h.hubBin, "start", "-state", h.state, "-wait", "90s"))

	var s struct{ Port int }
	b, err := os.ReadFile(filepath.Join(h.state, "hub.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	h.port = s.Port
	f, err := os.Open(filepath.Join(h.state, "accounts.csv"))
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	for _, r := range recs[1:] {
		h.passwords[r[0]] = r[2]
	}
	for _, id := range h.ids {
		require.NotEmpty(t, h.passwords[id], "no password for %s", id)
	}
	return h
}

// asUser runs a shell command as the account u and returns its output
// and whether it succeeded.
func asUser(ctx context.Context, u, script string) (string, bool) {
	out, err := exec.CommandContext(ctx, "runuser", "-u", u, "--", "sh", "-c", script).CombinedOutput()
	return string(out), err == nil
}

// newBrowser starts headless Chromium for the test, marked.
func newBrowser(t *testing.T, ctx context.Context, mark string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-sandbox", os.Geteuid() == 0),
		chromedp.Env(runMarkEnv+"="+mark),
		chromedp.WindowSize(1400, 1000),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	require.NoError(t, chromedp.Do(bctx), "start %s", chromiumPath)
	return bctx
}

// login opens a browser context of its own (its own cookies) and logs in
// as the student; it returns the context, logged in on their server's
// tree.
func (h *hubRun) login(ctx context.Context, id string) (context.Context, context.CancelFunc, error) {
	sctx, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	url := fmt.Sprintf("http://127.0.0.1:%d", h.port)
	err := chromedp.Do(sctx,
		chromedp.Navigate(url+"/hub/login"),
		chromedp.WaitVisible(chromedp.CSS(`#username_input`)),
		chromedp.SendKeys(chromedp.CSS(`#username_input`), h.users[id]),
		chromedp.SendKeys(chromedp.CSS(`#password_input`), h.passwords[id]),
		chromedp.Click(chromedp.CSS(`#login_submit`)),
	)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("log in as %s: %w", h.users[id], err)
	}
	// The hub spawns the server and the spawn page follows it to the tree.
	err = waitPage(sctx, fmt.Sprintf(`location.pathname.startsWith('/user/%s/tree')`, h.users[id]))
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("%s's server did not come up: %w", h.users[id], err)
	}
	return sctx, cancel, nil
}

// runHubNotebook opens notebook 01 on the student's server, runs all its
// cells from the Cell menu and returns the cells' report, how long the
// first figure took from the click, and the whole run.
func (h *hubRun) runHubNotebook(ctx context.Context, id string) ([]cellReport, time.Duration, time.Duration, error) {
	url := fmt.Sprintf("http://127.0.0.1:%d/user/%s/notebooks/%s/notebooks/01_sine_and_derivatives.ipynb", h.port, h.users[id], collect.CopyDir)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return nil, 0, 0, err
	}
	if err := waitPage(ctx, jsReady); err != nil {
		return nil, 0, 0, fmt.Errorf("the kernel did not start: %w", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#celllink`)), chromedp.Click(chromedp.CSS(`#run_all_cells a`))); err != nil {
		return nil, 0, 0, fmt.Errorf("Cell > Run All: %w", err)
	}
	start := time.Now()
	var first time.Duration
	quiet := 0
	for {
		if ctx.Err() != nil {
			return nil, 0, 0, ctx.Err()
		}
		if first == 0 {
			n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.output_area img').length`))
			if err == nil && n > 0 {
				first = time.Since(start)
			}
		}
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](jsState))
		if err != nil {
			return nil, 0, 0, err
		}
		var st pageState
		if err := json.Unmarshal([]byte(raw), &st); err != nil {
			return nil, 0, 0, err
		}
		if st.Idle && st.Running == 0 && first > 0 {
			if quiet++; st.Pending == 0 || quiet >= 12 {
				break
			}
		} else {
			quiet = 0
		}
		time.Sleep(500 * time.Millisecond)
	}
	took := time.Since(start)
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](jsReport))
	if err != nil {
		return nil, 0, 0, err
	}
	var cells []cellReport
	if err := json.Unmarshal([]byte(raw), &cells); err != nil {
		return nil, 0, 0, err
	}
	_, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { Jupyter.notebook.set_dirty(false); window.onbeforeunload = null;
		Jupyter.notebook.session.delete(); return true; })()`))
	return cells, first, took, nil
}

// editFile opens rel of the student's copy in the server's text editor,
// replaces its text and saves it, as a student typing does.
func (h *hubRun) editFile(ctx context.Context, id, rel, text string) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/user/%s/edit/%s/%s", h.port, h.users[id], collect.CopyDir, rel)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return err
	}
	if err := waitPage(ctx, `!!(window.Jupyter && Jupyter.editor && Jupyter.editor.codemirror && Jupyter.editor.codemirror.getValue().length > 0)`); err != nil {
		return fmt.Errorf("the editor did not open %s: %w", rel, err)
	}
	js := fmt.Sprintf(`(() => { Jupyter.editor.codemirror.setValue(%s); Jupyter.editor.save(); return true; })()`, jsString(text))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil {
		return err
	}
	p := filepath.Join("/home", h.users[id], collect.CopyDir, filepath.FromSlash(rel))
	for ctx.Err() == nil {
		if b, err := os.ReadFile(p); err == nil && string(b) == text {
			return nil
		}
		time.Sleep(300 * time.Millisecond)
	}
	return fmt.Errorf("the editor's save of %s did not reach the home before the test's deadline", rel)
}

// waitPage waits until the page's expression js is true, across the
// page's navigations (an evaluation that fails while the page changes is
// tried again), as long as ctx lasts (the test's deadline).
func waitPage(ctx context.Context, js string) error {
	var last error
	for ctx.Err() == nil {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return nil
		}
		last = err
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("%s not true before the test's deadline (last error: %v): %w", js, last, ctx.Err())
}

// jsString quotes s for JavaScript.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// stubBody matches the stub of Discretize's body as handed out.
var stubBody = regexp.MustCompile(`(?s)(func Discretize\(.*?\) \(xs, ys \[\]float64, err error\) \{\n).*?\n\}\n`)

// solution is a cell-centred Discretize written for this test, with the
// student's mark.
func solution(mark string) string {
	return `	// ` + mark + `
	if n < 1 {
		return nil, nil, fmt.Errorf("n = %d: at least one cell", n)
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) || !(a < b) || math.IsInf(b-a, 0) {
		return nil, nil, fmt.Errorf("[%g, %g] is not a finite interval", a, b)
	}
	h := (b - a) / float64(n)
	for k := 0; k < n; k++ {
		x := a + h/2 + float64(k)*h
		xs = append(xs, x)
		ys = append(ys, f(x))
	}
	return xs, ys, nil
}
`
}

// TestHubTerm is the term on the hub, end to end: three students log in
// at once through headless Chromium, as in a lab session, run notebook 01
// and edit exercises/01_sine in the browser; the hand-ins are collected
// from their homes and graded, each student's work in their own row; their
// feedback lands in their homes. No student can read another's home, the
// instructor's copy or the hub's passwords, and each server runs under the
// per-user limits.
func TestHubTerm(t *testing.T) {
	hubNeed(t)
	ctx, cancel := context.WithTimeout(context.Background(), testlimit.Legit(t))
	defer cancel()
	h := setupHub(t, ctx, 3)

	t.Run("a student reads neither another's home nor the instructor's files", func(t *testing.T) {
		a, b := h.users[h.ids[0]], h.users[h.ids[1]]
		for p, want := range map[string]os.FileMode{
			filepath.Join(h.state, "accounts.csv"): 0o600,
			h.state:                                0o700,
			filepath.Join("/home", a):              0o700,
			filepath.Join("/home", b):              0o700,
		} {
			st, err := os.Stat(p)
			require.NoError(t, err)
			assert.Equal(t, want, st.Mode().Perm(), p)
		}
		own := filepath.Join("/home", a, collect.CopyDir, "exercises", "01_sine", "sine.go")
		out, ok := asUser(ctx, a, "cat "+own)
		require.True(t, ok, "control: a student reads their own file: %s", out)
		hidden, err := filepath.Glob(filepath.Join(h.root, "exercises", "checks", "hidden_*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, hidden, "the instructor's copy has hidden checks")
		for _, p := range []string{
			filepath.Join("/home", b, collect.CopyDir, "exercises", "01_sine", "sine.go"),
			filepath.Join("/home", b),
			filepath.Join(h.root, "exercises", "01_sine", "sine.go"), // the solution
			hidden[0],
			h.root,
			filepath.Join(h.state, "accounts.csv"),
			filepath.Join(h.state, "handout", "go.mod"),
		} {
			out, ok := asUser(ctx, a, "cat "+p+" || ls "+p)
			assert.False(t, ok, "%s read %s: %s", a, p, out)
			assert.Contains(t, out, "Permission denied", p)
		}
	})

	bctx := newBrowser(t, ctx, h.mark)
	stub, err := os.ReadFile(filepath.Join(h.state, "handout", "exercises", "01_sine", "sine.go"))
	require.NoError(t, err)
	require.Regexp(t, stubBody, string(stub))
	// Students 0 and 2 solve the exercise, each with their own mark;
	// student 1 leaves the stub, marked.
	want := map[string]string{}
	for i, id := range h.ids {
		mark := "the work of " + id
		if i == 1 {
			want[id] = strings.Replace(string(stub), "package sine", "// "+mark+"\npackage sine", 1)
		} else {
			src := strings.Replace(string(stub), "import (\n", "import (\n\t\"fmt\"\n\t\"math\"\n\n", 1)
			want[id] = stubBody.ReplaceAllString(src, "${1}"+strings.ReplaceAll(solution(mark), "$", "$$"))
		}
	}
	// The students work at once, each in a browser context of their own;
	// the group ends when the last is done.
	t.Run("the students at once", func(t *testing.T) {
		for _, id := range h.ids {
			t.Run("student "+id, func(t *testing.T) {
				t.Parallel()
				sctx, scancel, err := h.login(bctx, id)
				require.NoError(t, err)
				defer scancel()
				cells, first, took, err := h.runHubNotebook(sctx, id)
				require.NoError(t, err)
				assert.Empty(t, problems(cells), "cells that failed, did not run or lost their figure")
				t.Logf("%s: first figure after %v, Run All %v", id, first.Round(100*time.Millisecond), took.Round(100*time.Millisecond))
				require.NoError(t, h.editFile(sctx, id, "exercises/01_sine/sine.go", want[id]))

				// The student's server runs under the limits.
				u, err := user.Lookup(h.users[id])
				require.NoError(t, err)
				uid, _ := strconv.Atoi(u.Uid)
				pid := serverPid(uid)
				require.NotZero(t, pid, "%s's server", id)
				limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
				require.NoError(t, err)
				assert.Regexp(t, `Max processes\s+512\s+512`, string(limits))
				assert.Regexp(t, fmt.Sprintf(`Max data size\s+%d\s+%d`, 3<<30, 3<<30), string(limits))
				if cg := memoryLimit(pid); cg > 0 {
					assert.Equal(t, int64(3<<30), cg, "the student's memory cgroup")
					for file, want := range map[string]string{"cpu.cfs_quota_us": "100000", "cpu.max": "100000 100000", "pids.max": "512"} {
						if got, ok := cgroupFile(pid, file); ok {
							assert.Equal(t, want, got, "the student's cgroup's %s", file)
						}
					}
				} else {
					t.Logf("no memory cgroup could be made here: the rlimits alone apply")
				}
			})
		}
	})

	// docs/hub.md's commands, as written there, on this hub's folders.
	class := filepath.Join(h.base, "class-week1")
	book := filepath.Join(h.base, "gradebook-week1")
	cmds := hubDocCommands(t, h.root, map[string]string{
		"/var/lib/stencillab-hub": h.state, "roster.csv": h.roster, "class-week1": class,
		"gradebook-week1": book, "grades-canvas.csv": filepath.Join(h.base, "grades-canvas.csv"),
		// A deadline just ahead (RFC 3339 has whole seconds): collect
		// waits for it, and the edits above are all before it.
		docDeadline: time.Now().Add(2 * time.Second).Format(time.RFC3339),
	})
	require.Len(t, cmds, 4, "docs/hub.md's collect -hub, grade -class, export and return -hub")
	out := run(t, ctx, h.root, nil, h.gradeBin, cmds[0]...)
	t.Log(out)
	m, err := collect.ReadManifest(class)
	require.NoError(t, err)
	require.Len(t, m.Students, 3, "the three hand-ins: %s", out)
	for _, hd := range m.Students {
		for _, f := range hd.Files {
			if f.Path == "exercises/01_sine/sine.go" {
				sum := sha256.Sum256([]byte(want[hd.ID]))
				assert.Equal(t, hex.EncodeToString(sum[:]), f.SHA256, "%s's snapshot is what their browser saved", hd.ID)
			}
		}
	}
	// Grading the whole catalogue would take minutes: the test grades
	// the exercise the students edited.
	t.Log(run(t, ctx, h.root, nil, h.gradeBin, append(cmds[1], "01_sine")...))
	t.Log(run(t, ctx, h.root, nil, h.gradeBin, cmds[2]...))
	csvOut, err := os.ReadFile(filepath.Join(h.base, "grades-canvas.csv"))
	require.NoError(t, err)
	for _, id := range h.ids {
		assert.Contains(t, string(csvOut), id+"@uni.example", "the export has %s", id)
	}
	g, err := gradebook.Read(filepath.Join(book, "gradebook.json"))
	require.NoError(t, err)
	max := 0
	for _, e := range checks.All() {
		if e.ID == "01_sine" {
			max = e.MaxPoints()
		}
	}
	require.Positive(t, max)
	for i, id := range h.ids {
		s := g.Students[id]
		require.NotNil(t, s, "a row for %s", id)
		require.NotNil(t, s.Person, "%s mapped to the roster", id)
		assert.Equal(t, id, s.Person.ID)
		var sha string
		for _, f := range s.Files {
			if strings.HasSuffix(f.Path, "01_sine/sine.go") {
				sha = f.SHA256
			}
		}
		sum := sha256.Sum256([]byte(want[id]))
		assert.Equal(t, hex.EncodeToString(sum[:]), sha, "%s's row grades %s's file", id, id)
		c := s.Cells["01_sine"]
		require.NotNil(t, c, "%s: 01_sine", id)
		// The grader's maximum counts the hidden checks too.
		assert.GreaterOrEqual(t, c.MaxPoints, max, "%s: 01_sine's maximum", id)
		if i == 1 {
			assert.Zero(t, c.Points, "%s left the stub", id)
		} else {
			assert.Equal(t, c.MaxPoints, c.Points, "%s solved it", id)
		}
	}

	// Feedback back into the homes.
	t.Log(run(t, ctx, h.root, nil, h.gradeBin, cmds[3]...))
	for _, id := range h.ids {
		fb := filepath.Join("/home", h.users[id], collect.FeedbackDir, "feedback.md")
		b, err := os.ReadFile(fb)
		require.NoError(t, err, "%s's feedback", id)
		want, err := os.ReadFile(filepath.Join(book, "feedback", id+".md"))
		require.NoError(t, err)
		assert.Equal(t, want, b)
		out, ok := asUser(ctx, h.users[id], "cat "+fb)
		assert.True(t, ok, "%s reads their feedback: %s", id, out)
	}
}

// docDeadline is the deadline docs/hub.md's commands give.
const docDeadline = "2026-12-01 12:00"

// hubDocCommands returns the arguments of docs/hub.md's `grade` commands
// that run on the hub (collect -hub, grading the class, the export and
// return -hub), in the page's order, each word of the page replaced as
// subst says.
func hubDocCommands(t *testing.T, root string, subst map[string]string) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "hub.md"))
	require.NoError(t, err)
	var out [][]string
	inCode := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if !inCode || !strings.HasPrefix(line, "grade ") {
			continue
		}
		words := shellWords(line)[1:]
		joined := strings.Join(words, " ")
		hub := strings.Contains(joined, "-hub ") || (words[0] != "collect" && words[0] != "return")
		if !hub || strings.Contains(joined, "-o feedback") {
			continue
		}
		for i, w := range words {
			if r, ok := subst[w]; ok {
				words[i] = r
				continue
			}
			for from, to := range subst {
				if strings.HasPrefix(w, from+"/") {
					words[i] = to + strings.TrimPrefix(w, from)
				}
			}
		}
		out = append(out, words)
	}
	return out
}

// shellWords splits a command line into words, as the shell does for
// words and double quotes.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	quoted, in := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// serverPid finds the single-user server of the account uid.
func serverPid(uid int) int {
	for _, pid := range hub.UserPids(uid) {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if bytes.Contains(cmd, []byte("jupyterhub-singleuser")) {
			return pid
		}
	}
	return 0
}

// memoryLimit reads the memory limit of pid's cgroup (v1 or v2), 0 when
// it has none of the hub's.
func memoryLimit(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !strings.Contains(f[2], "/stencillab/") {
			continue
		}
		var p string
		switch f[1] {
		case "memory":
			p = "/sys/fs/cgroup/memory" + f[2] + "/memory.limit_in_bytes"
		case "":
			p = "/sys/fs/cgroup" + f[2] + "/memory.max"
		default:
			continue
		}
		v, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
		if err == nil {
			return n
		}
	}
	return 0
}

// cgroupFile reads the file of the hub's cgroup of pid that holds it (v1:
// the hierarchy of its controller; v2: the unified one).
func cgroupFile(pid int, file string) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return "", false
	}
	ctl := strings.SplitN(file, ".", 2)[0]
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !strings.Contains(f[2], "/stencillab/") {
			continue
		}
		var p string
		switch {
		case f[1] == "":
			p = "/sys/fs/cgroup" + f[2] + "/" + file
		case strings.Contains(","+f[1]+",", ","+ctl+","):
			p = "/sys/fs/cgroup/" + ctl + f[2] + "/" + file
		default:
			continue
		}
		if v, err := os.ReadFile(p); err == nil {
			return strings.TrimSpace(string(v)), true
		}
	}
	return "", false
}

// rssOf sums the resident memory of the processes of the uids, in bytes.
func rssOf(uids []int) int64 {
	var total int64
	for _, uid := range uids {
		for _, pid := range hub.UserPids(uid) {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
			if err != nil {
				continue
			}
			f := strings.Fields(string(b))
			if len(f) > 1 {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				total += n * int64(os.Getpagesize())
			}
		}
	}
	return total
}

// TestHubLoad measures STENCILLAB_HUB_LOAD students logging in at once,
// each running notebook 01 in a browser context of their own: the time
// from the login to the first figure, per student, and the memory of the
// students' processes (peak of their summed RSS) and of the machine. A
// measurement, not a check: it logs the numbers for docs/hub.md.
func TestHubLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(hubLoadEnv))
	if n <= 0 {
		t.Skipf("a measurement: set %s to the number of students", hubLoadEnv)
	}
	hubNeed(t)
	ctx, cancel := context.WithTimeout(context.Background(), testlimit.Legit(t))
	defer cancel()
	h := setupHub(t, ctx, n)
	bctx := newBrowser(t, ctx, h.mark)
	var uids []int
	for _, id := range h.ids {
		u, err := user.Lookup(h.users[id])
		require.NoError(t, err)
		uid, _ := strconv.Atoi(u.Uid)
		uids = append(uids, uid)
	}
	var peak, peakUsed int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if r := rssOf(uids); r > peak {
				peak = r
			}
			if u := usedMemory(); u > peakUsed {
				peakUsed = u
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
		}
	}()
	baseUsed := usedMemory()
	type result struct {
		id          string
		first, took time.Duration
		err         error
		problems    []string
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i, id := range h.ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := result{id: id}
			t0 := time.Now()
			sctx, scancel, err := h.login(bctx, id)
			if err != nil {
				r.err = err
				results[i] = r
				return
			}
			defer scancel()
			cells, first, took, err := h.runHubNotebook(sctx, id)
			r.err = err
			r.problems = problems(cells)
			r.first = time.Since(t0) - took + first
			r.took = time.Since(t0)
			results[i] = r
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	close(stop)
	<-sampled
	var firsts []float64
	for _, r := range results {
		if r.err != nil || len(r.problems) > 0 {
			t.Errorf("%s: %v %v", r.id, r.err, r.problems)
			continue
		}
		firsts = append(firsts, r.first.Seconds())
	}
	sort.Float64s(firsts)
	if len(firsts) == 0 {
		t.Fatal("no student got a figure")
	}
	q := func(p float64) float64 { return firsts[int(p*float64(len(firsts)-1))] }
	t.Logf("HUB LOAD: %d students at once, %d got their figures; login to first figure: min %.1f s, median %.1f s, 90th %.1f s, max %.1f s; all done in %.1f s",
		n, len(firsts), firsts[0], q(0.5), q(0.9), firsts[len(firsts)-1], wall.Seconds())
	t.Logf("HUB LOAD: students' processes, peak summed RSS %.2f GiB (%.0f MiB a student); machine's used memory %.2f GiB before, peak %.2f GiB",
		float64(peak)/(1<<30), float64(peak)/(1<<20)/float64(n), float64(baseUsed)/(1<<30), float64(peakUsed)/(1<<30))
}

// usedMemory is the machine's memory in use (MemTotal − MemAvailable).
func usedMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	var total, avail int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "MemTotal:":
			total = v
		case "MemAvailable:":
			avail = v
		}
	}
	return (total - avail) << 10
}
