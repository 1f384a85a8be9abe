package release

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// The release markers are outside input (an instructor's files): the
// strippers never panic, a refusal for misplaced markers wraps ErrMarkers,
// and what they return holds no solution.
func FuzzStrip(f *testing.F) {
	if b, err := os.ReadFile("../01_sine/sine.go"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"package p\n\nfunc F() int {\n\t// BEGIN SOLUTION\n\treturn 1\n\t// END SOLUTION\n\t// BEGIN STUB\n\t// return 0\n\t// END STUB\n}\n",
		"package p\n// BEGIN SOLUTION\n", "// END SOLUTION\n", "// BEGIN STUB: note\n// x\n// END STUB\n", "package p\n\n//go:build hidden\n",
		"package p\nimport \"fmt\"\nfunc F() {\n// BEGIN SOLUTION\nfmt.Println()\n// END SOLUTION\n}\n",
		`{"cells": [{"cell_type": "code", "source": ["// BEGIN SOLUTION\n", "x\n", "// END SOLUTION\n"], "outputs": [1]}], "nbformat": 4}`,
		`{"cells": [{"cell_type": "code", "source": 7}]}`, `{"cells": null}`, "",
		`{"cells": [{"cell_type": "markdown", "metadata": {"tags": ["answer"]}, "source": "x"}, {"cell_type": "code", "metadata": {"tags": 3}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		check := func(what string, out []byte, err error) {
			if err != nil {
				if err.Error() == "" {
					t.Fatalf("%s: empty error", what)
				}
				return
			}
			if strings.Contains(string(out), BeginSolution) && HasSolution(out) {
				t.Fatalf("%s: a solution is left in %q", what, out)
			}
		}
		_ = HasSolution(src)
		_ = GoHasSolution(src)
		_ = IsHidden(src)
		_ = NotebookHasSolution(src)
		out, err := StripText("fuzz.txt", src)
		if err != nil && !errors.Is(err, ErrMarkers) {
			t.Fatalf("StripText: error %v does not wrap ErrMarkers", err)
		}
		check("StripText", out, err)
		out, err = StripGo("fuzz.go", src)
		check("StripGo", out, err)
		out, err = StripNotebook("fuzz.ipynb", src)
		check("StripNotebook", out, err)
		// The answer cells of the course's notebooks (tag AnswerTag).
		out, err = StripAnswers("fuzz.ipynb", src)
		if err == nil && NotebookHasAnswers(out) {
			t.Fatalf("StripAnswers left an answer cell in %q", out)
		}
	})
}

// Any file may reach the course-data check (a release is built from the
// instructor's tree, which may hold anything): it never panics, and a
// finding names the file, its kind and why.
func FuzzCourseData(f *testing.F) {
	for _, s := range [][2]string{
		{"roster.csv", "id,name,email\nana,Ana,ana@uni.example\n"},
		{"docs/x.json", `{"students": {"a": {}}, "runs": []}`},
		{"a/01_sine/sine.go", "package sine\n"},
		{"docs/f.md", "# Feedback for ana\n"},
		{"notes", "ana,01_sine,3,late\n"},
		{"x.txt", "a;b\n\"c;d\n"},
	} {
		f.Add(s[0], []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, rel string, b []byte) {
		got, found := CourseData(rel, b)
		if found && (got.File != rel || got.Kind == "" || got.Why == "") {
			t.Fatalf("%q: finding %+v", rel, got)
		}
		if !found && got != (CourseFinding{}) {
			t.Fatalf("%q: no finding but %+v", rel, got)
		}
	})
}

// A CUDA source is outside input too (an instructor's file): the
// withholding marker's reader and the placeholder never panic; a refusal
// wraps ErrWithhold (or is cuda2go's, for signatures it cannot read); a
// placeholder keeps the marker and the kernels' entries, stops at the
// #error before any other code, and is its own placeholder.
func FuzzWithhold(f *testing.F) {
	if b, err := os.ReadFile("../../cuda/star13.cu"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(withheldKernel))
	f.Add([]byte(strings.ReplaceAll(withheldKernel, "\n", "\r\n")))
	for _, s := range []string{
		"// release: instructor only — why\nextern \"C\" __global__ void k(float* o) { o[0] = 1; }\n",
		"// release: instructor only — why\nextern \"C\" __global__ void k(float* o);\n",
		"// release: instructor only — why\nextern \"C\" { __global__ void k(float* o) {} }\n",
		"// release: instructor only — why\nextern \"C\" __global__ void k(float* o\n",
		"// release: instructor only — why\n#ifndef A\n#define A 1\n#endif",
		"x\n// release: instructor only — why\n", "/* release: instructor only — why */\n", "",
		"// release: instructor only — why\nextern \"C\" __global__ void k(const char* s = \"{\", float c) {}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		why, err := WithheldReason("f.cu", src)
		if err != nil {
			if !errors.Is(err, ErrWithhold) {
				t.Fatalf("WithheldReason: error %v does not wrap ErrWithhold", err)
			}
			return
		}
		out, err := Placeholder("f.cu", src)
		if why == "" {
			if !errors.Is(err, ErrWithhold) {
				t.Fatalf("Placeholder of a file that is not withheld: %v", err)
			}
			return
		}
		if err != nil {
			if !errors.Is(err, ErrWithhold) && !strings.HasPrefix(err.Error(), "release: f.cu: the instructor's kernels: cuda2go: ") {
				t.Fatalf("Placeholder: error %v", err)
			}
			return
		}
		if again, err := WithheldReason("f.cu", out); err != nil || again != why {
			t.Fatalf("the placeholder's reason is %q (%v), the file's %q", again, err, why)
		}
		for _, line := range strings.Split(string(out), "\n") {
			trim := strings.TrimSpace(line)
			if trim == "" || strings.HasPrefix(trim, "//") {
				continue
			}
			if trim != `#error "`+WithheldMessage(why)+`"` {
				t.Fatalf("the first line of code of the placeholder is %q", trim)
			}
			break
		}
		if again, err := Placeholder("f.cu", out); err != nil || string(again) != string(out) {
			t.Fatalf("the placeholder's placeholder differs (%v):\n%s\n%s", err, out, again)
		}
	})
}
