package grader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// No message a student reads names the instructor's checkout, a path of
// this machine or its environment. The checkout is seen through a folder
// with a name no message could hold by chance; the hand-in makes every
// kind of message of the Go exercises: a static check's rejection, a
// compile error, a panic, a missing exercise, an attack's forged output.
func TestStudentMessagesNameNoPathOfTheMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	real := repoRoot(t)
	base := t.TempDir()
	checkout := filepath.Join(base, "InstructorSecretCheckout")
	require.NoError(t, os.Symlink(real, checkout))
	sub := filepath.Join(base, "HandInOfStudentZed")
	copyAttack(t, sub, "01_sine")                                               // forged output, files it may not open
	require.NoError(t, os.MkdirAll(filepath.Join(sub, "02_derivative"), 0o755)) // does not compile
	e2 := findExercise(t, "02_derivative")
	require.NoError(t, os.WriteFile(filepath.Join(sub, "02_derivative", e2.Files[0]), []byte("package derivative\n\nfunc broken( {\n"), 0o644))
	copyExercise(t, real, sub, "03_five_point", false) // a panic at run time
	e3 := findExercise(t, "03_five_point")
	f3 := filepath.Join(sub, "03_five_point", e3.Files[0])
	b, err := os.ReadFile(f3)
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		lines = append(lines, l)
		if strings.HasPrefix(l, "func ") && strings.HasSuffix(l, "{") {
			lines = append(lines, "\tvar boom []int", "\t_ = boom[len(boom)]")
		}
	}
	src := strings.Join(lines, "\n")
	require.NoError(t, os.WriteFile(f3, []byte(src), 0o644))
	// 04_intensity is not handed in: missing.

	cache := filepath.Join(base, "CacheOfTheGrader")
	rep, err := Grade(Config{Root: checkout, Seed: 3, Submission: sub, NoSandbox: true, Hidden: false, CacheDir: cache,
		Only: []string{"01_sine", "02_derivative", "03_five_point", "04_intensity"}})
	require.NoError(t, err)
	require.Len(t, rep.Exercises, 4)
	home, _ := os.UserHomeDir()
	forbidden := []string{"InstructorSecretCheckout", "HandInOfStudentZed", "CacheOfTheGrader", real, base, os.TempDir() + "/", home + "/"}
	if h, err := os.Hostname(); err == nil && len(h) >= 4 {
		forbidden = append(forbidden, h)
	}
	var all strings.Builder
	for _, e := range rep.Exercises {
		all.WriteString(e.Message + "\n")
		for _, c := range e.Checks {
			all.WriteString(c.Message + "\n")
		}
	}
	for _, f := range forbidden {
		if f == "/" || f == "" {
			continue
		}
		assert.NotContains(t, all.String(), f)
	}
	assert.NotEmpty(t, strings.TrimSpace(all.String()), "the messages were produced")
	assert.Contains(t, all.String(), "index out of range", "the panic's message is there")
	assert.Contains(t, all.String(), "does not compile")
	assert.Contains(t, all.String(), "the static check refused")
}

// The notes of a class run's rows (a notebook refused, a link refused)
// name no path of the class folder or the checkout either.
func TestClassNotesNameNoPathOfTheMachine(t *testing.T) {
	root := repoRoot(t)
	only := []string{"01_sine"}
	exs, err := selectExercises(catalogue(), only)
	require.NoError(t, err)
	class := filepath.Join(t.TempDir(), "ClassFolderOfTheInstructor")
	require.NoError(t, os.MkdirAll(filepath.Join(class, "zed"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(class, "zed", "09_exercises.ipynb"), []byte(`{"cells": [`), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(class, "zed"), filepath.Join(class, "ann")))
	require.NoError(t, os.MkdirAll(filepath.Join(class, "bo", "09_exercises.ipynb"), 0o755))
	book, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 9, Only: only, NoSandbox: true, CacheDir: t.TempDir()},
		Class: class, Out: t.TempDir(), Jobs: 2, grade: standIn(exs)})
	require.NoError(t, err)
	require.Len(t, book.Students, 3)
	for id, s := range book.Students {
		text := s.Note
		for _, c := range s.Cells {
			text += "\n" + c.Result.Message
		}
		assert.NotEmpty(t, strings.TrimSpace(text), id)
		for _, f := range []string{"ClassFolderOfTheInstructor", class, root, os.TempDir() + "/"} {
			assert.NotContains(t, text, f, id)
		}
	}
}
