package cudacheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/gpu"
)

// NVRTC's log as the student sees it: the diagnostics of their file, with
// their quoted lines, and the count; nothing of another file the compiler
// read (a /proc file, a header) and no line the lab does not know.
func TestStudentLogKeepsTheStudentsLines(t *testing.T) {
	log := strings.Join([]string{
		"basic.cu(12): error: identifier \"x\" is undefined",
		"      x = 1;",
		"      ^",
		"",
		"/proc/self/mountinfo(1): error: this declaration has no storage class or type specifier",
		"  22 1 0:21 / /grader/secret rw,relatime shared:1 - ext4 /dev/sda1 rw",
		"  ^",
		"",
		"/usr/include/x.h(3): warning #177-D: variable \"HOME=/home/instructor\" was declared but never referenced",
		"",
		"basic.cu(14): warning #550-D: variable \"y\" was set but never used",
		"        int y = 2;",
		"            ^",
		"",
		"Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"",
		"mount table: /grader/secret",
		"",
		"2 errors detected in the compilation of \"basic.cu\".",
	}, "\n")
	got := StudentLog("basic.cu", log)
	want := strings.Join([]string{
		"basic.cu(12): error: identifier \"x\" is undefined", "      x = 1;", "      ^", "",
		"basic.cu(14): warning #550-D: variable \"y\" was set but never used", "        int y = 2;", "            ^", "",
		"2 errors detected in the compilation of \"basic.cu\".",
		"(2 diagnostics about other files than basic.cu left out)",
	}, "\n")
	assert.Equal(t, want, got)
	for _, leak := range []string{"/proc", "/grader", "instructor", "/usr/include"} {
		assert.NotContains(t, got, leak)
	}

	inner := &gpu.NVRTCError{Call: "nvrtcCompileProgram", Name: "NVRTC_ERROR_COMPILATION", Log: log}
	long := strings.Repeat("basic.cu(1): error: e\n", 3*maxLogLines)
	lines := strings.Split(StudentLog("basic.cu", long), "\n")
	assert.Len(t, lines, maxLogLines+1)
	assert.Equal(t, fmt.Sprintf("… %d more lines", 2*maxLogLines), lines[maxLogLines])
	assert.NotContains(t, (&gpu.CompileLogError{File: "basic.cu", Log: StudentLog("basic.cu", inner.Log)}).Error(), "/proc")
}

func FuzzStudentLog(f *testing.F) {
	f.Add("basic.cu(1): error: x\n  a\n\nsecret(2): error: SECRET\n  SECRET\n")
	f.Add("1 error detected in the compilation of \"basic.cu\".\nSECRET")
	f.Fuzz(func(t *testing.T, log string) {
		// Whatever NVRTC writes, a line under a diagnostic of another file
		// never reaches the student, and every line kept is one of the
		// student's diagnostics, a line under one, the count or the note.
		got := StudentLog("basic.cu", log)
		if len(got) > (maxLogLines+2)*(maxLogLine+8) {
			t.Fatalf("%d bytes kept", len(got))
		}
		under := false
		for _, l := range strings.Split(got, "\n") {
			switch {
			case strings.HasPrefix(l, "basic.cu("):
				under = true
			case l == "":
				under = false
			case logSummary.MatchString(l), strings.HasPrefix(l, "(") && strings.HasSuffix(l, "left out)"), strings.HasPrefix(l, "… "):
			case !under:
				t.Fatalf("%q kept outside a diagnostic of the file, from %q", l, log)
			}
		}
	})
}
