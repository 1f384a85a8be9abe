// Package badcall runs a test's calls with bad arguments each in a child
// process, the test binary run again with an environment variable naming
// the call, so that a panic, even one in a goroutine no recover catches,
// fails that call's check rather than the test binary.
package badcall

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Mark starts the line a child prints when the call returned.
const Mark = "bad call returned:"

// Call is one call of an export with bad arguments.
type Call struct {
	Name    string       // "Export/what is bad"
	Call    func() error // the call; nil error for an export that returns none
	WantErr bool         // the export must return an error
}

// Child makes the call the variable env names, in the test childTest runs:
// it skips the test where env is unset, and fails it for a name calls
// lacks.
func Child(t *testing.T, env string, calls []Call) {
	t.Helper()
	name := os.Getenv(env)
	if name == "" {
		t.Skip("run in a child process, with " + env + " naming a call")
	}
	for _, c := range calls {
		if c.Name == name {
			fmt.Printf("\n%s %v\n", Mark, c.Call())
			return
		}
	}
	t.Fatalf("no bad call %q", name)
}

// Spawn runs the test binary's test childTest in a child process with env
// naming the call name, and returns its output and how it ended.
func Spawn(t *testing.T, env, childTest, name string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^"+childTest+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+name)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err = cmd.Run()
	return b.String(), err
}

// Run makes each call in a child process running childTest (which calls
// Child), a few at a time, and checks that each returned without a panic,
// with an error where WantErr is set. It returns what each call that
// returned printed, by name, for further checks. Names must be unique.
func Run(t *testing.T, env, childTest string, calls []Call) map[string]string {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range calls {
		require.False(t, seen[c.Name], "two bad calls named %q", c.Name)
		seen[c.Name] = true
	}
	type outcome struct {
		out string
		err error
	}
	outcomes := make([]outcome, len(calls))
	sem := make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out, err := Spawn(t, env, childTest, c.Name)
			outcomes[i] = outcome{out, err}
		}()
	}
	wg.Wait()
	returned := map[string]string{}
	for i, c := range calls {
		out := outcomes[i].out
		if !assert.NoError(t, outcomes[i].err, "%s: the child process failed:\n%s", c.Name, Tail(out)) {
			continue
		}
		assert.NotContains(t, out, "panic:", c.Name)
		_, ret, found := strings.Cut(out, Mark)
		if !assert.True(t, found, "%s: the call did not return:\n%s", c.Name, Tail(out)) {
			continue
		}
		ret = strings.TrimSpace(strings.SplitN(ret, "\n", 2)[0])
		if c.WantErr {
			assert.NotEqual(t, "<nil>", ret, "%s: bad arguments must give an error", c.Name)
		}
		returned[c.Name] = ret
	}
	return returned
}

// Tail returns the last lines of a child's output, for a failure message.
func Tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}

// Exports lists, from the source files of the package in the current
// folder (a test's), its exported functions ("Sweep") and the exported
// methods of every type ("Result.Classify", "notebookWriter.Write"),
// sorted. It fails t on a method whose receiver it cannot read.
func Exports(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err, f)
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			if fn.Recv == nil {
				names = append(names, fn.Name.Name)
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			id, ok := recv.(*ast.Ident)
			if !ok {
				t.Fatalf("%s: method %s has a receiver this test does not read", f, fn.Name.Name)
			}
			names = append(names, id.Name+"."+fn.Name.Name)
		}
	}
	slices.Sort(names)
	return names
}
