package cudacheck

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"stencillab.dev/gpu"
)

// compileStudent is the student-CUDA policy around gpu's compiler: the
// text is refused (CheckDirectives) before NVRTC runs, so that nothing but
// the submitted text reaches the compiler, and of NVRTC's log only the
// student's lines come back (StudentLog).
func compileStudent(d *gpu.Device, file, text, entry string, defs []gpu.Define, geom func(nz, ny, nx int) (gpu.Geometry, error)) (*gpu.SourceKernel, error) {
	if err := CheckDirectives(path.Base(file), text); err != nil {
		return nil, err
	}
	k, err := d.CompileSource(file, text, entry, defs, geom)
	return k, studentError(err)
}

// studentPTX is gpu's SourcePTX under the same policy as compileStudent.
func studentPTX(d *gpu.Device, file, text string, defs []gpu.Define) (string, error) {
	if err := CheckDirectives(path.Base(file), text); err != nil {
		return "", err
	}
	ptx, err := d.SourcePTX(file, text, defs)
	return ptx, studentError(err)
}

// studentError keeps only the student's lines of a compile log: the log of
// a file the compiler read besides (a header, a /proc file) stays here.
func studentError(err error) error {
	var ce *gpu.CompileLogError
	if errors.As(err, &ce) {
		return ce.WithLog(StudentLog(ce.File, ce.Log))
	}
	return err
}

// Bounds of the log StudentLog keeps.
const (
	maxLogLines = 200
	maxLogLine  = 400 // bytes of one line
)

// logHeading matches the first line of one of NVRTC's diagnostics:
// "FILE(LINE): error: …" (or warning, remark, catastrophic error, …).
var logHeading = regexp.MustCompile(`^(.*)\(([0-9]+)\): ([a-z][a-z ]*)(?: #[0-9A-Za-z-]+)?: `)

// logSummary matches the last line of NVRTC's log.
var logSummary = regexp.MustCompile(`^([0-9]+) (errors?|catastrophic errors?) detected in the compilation of "(.*)"\.$`)

// StudentLog returns the lines of NVRTC's log that are about file, the
// student's source: each diagnostic whose heading names file, with the
// lines under it (the source line quoted and the caret, the notes), and
// the count of errors. A diagnostic about any other file (a header, a
// /proc file, the command line) is left out with its quoted lines, and so
// is every other line: what the student sees of the compiler's log names
// nothing of the machine but their own text. The lines are bounded.
func StudentLog(file, log string) string {
	var out []string
	keep, dropped := false, 0 // dropped: diagnostics about other files
	for _, line := range strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n") {
		if m := logSummary.FindStringSubmatch(line); m != nil {
			if m[3] == file {
				out = append(out, line)
			}
			keep = false
			continue
		}
		if m := logHeading.FindStringSubmatch(line); m != nil {
			keep = m[1] == file
			if !keep {
				dropped++
			}
		}
		if strings.TrimSpace(line) == "" {
			if keep {
				out = append(out, "")
			}
			keep = false
			continue
		}
		if !keep {
			continue // under another file's diagnostic, or text the lab does not know
		}
		if len(line) > maxLogLine {
			line = strings.ToValidUTF8(line[:maxLogLine], "") + " …"
		}
		out = append(out, line)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) > maxLogLines {
		out = append(out[:maxLogLines], fmt.Sprintf("… %d more lines", len(out)-maxLogLines))
	}
	if dropped > 0 {
		out = append(out, fmt.Sprintf("(%d diagnostics about other files than %s left out)", dropped, file))
	}
	return strings.Join(out, "\n")
}
