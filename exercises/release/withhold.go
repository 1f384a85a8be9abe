package release

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"stencillab.dev/internal/cuda2go"
)

// Withheld CUDA sources. A lab kernel that answers an exercise (the lab's
// thirteen-point steps are the technique the CUDA exercises ask for, on
// their stencil) says so in its own opening comment, with one line:
//
//	// release: instructor only — it is the technique CUDA exercises 21–25 ask for, on their stencil
//
// The release writes a placeholder in its place (Placeholder): the marker
// line, every extern "C" __global__ signature of the file byte for byte
// (package gpu's launchers are generated from them by cuda2go), the
// defaults of its defines (#ifndef NAME / #define NAME … / #endif), and an
// #error that stops NVRTC with the reason, so that running the step in the
// students' copy fails at its compilation with that sentence and never
// runs anything else.
//
// The marker is an allow-list of one form: a line of the file's opening
// comment (the // lines before the first line of code) that starts with
// WithholdMarker and gives a reason. Any other line that reads as a marker
// ("release … instructor only" in any case or punctuation: after the first
// line of code, in a block comment, in a string, without a reason) stops
// the release with its file and line, so that a marker that went astray
// never lets the file through.

// WithholdMarker starts the line of a CUDA source's opening comment that
// withholds the file from the students' copy; the reason follows it.
const WithholdMarker = "// release: instructor only — "

// The sentence of a placeholder's #error is withheldPrefix, the marker's
// reason and withheldSuffix.
const (
	withheldPrefix = "withheld from the students' copy: "
	withheldSuffix = "; your instructor can release it after grading"
)

// ErrWithhold is wrapped by every refusal about a withholding marker or a
// withheld file.
var ErrWithhold = errors.New("withholding marker")

// IsCUDA reports whether a file is CUDA source by its name: .cu or .cuh.
func IsCUDA(name string) bool {
	return strings.HasSuffix(name, ".cu") || strings.HasSuffix(name, ".cuh")
}

// WithheldMessage returns the sentence a placeholder's #error gives for
// the reason why: what a student who runs the step reads.
func WithheldMessage(why string) string { return withheldPrefix + why + withheldSuffix }

// WithheldReason returns the reason the CUDA source src gives for being
// withheld from the students' copy, or "" when it is not withheld. A line
// that reads as a marker but is not one (outside the opening comment, in
// another form, without a reason, or with a reason that a C string or a
// // comment cannot hold) is an error wrapping ErrWithhold, naming the
// file and line. name is used in messages.
func WithheldReason(name string, src []byte) (string, error) {
	why := ""
	opening := true
	for n, line := range strings.SplitAfter(string(src), "\n") {
		trim := strings.TrimSpace(line)
		if opening && trim != "" && !strings.HasPrefix(trim, "//") {
			opening = false // the first line of code ends the opening comment
		}
		if !readsAsMarker(trim) {
			continue
		}
		if !opening {
			return "", fmt.Errorf("release: %s:%d: %q reads as a withholding marker after the file's first line of code; "+
				"the marker is a line of the opening comment, before any code (%q), and the release does not guess: %w",
				name, n+1, trim, WithholdMarker+"REASON", ErrWithhold)
		}
		reason, ok := strings.CutPrefix(trim, WithholdMarker)
		if !ok {
			return "", fmt.Errorf("release: %s:%d: %q reads as a withholding marker but is not one; write it %q: %w",
				name, n+1, trim, WithholdMarker+"REASON", ErrWithhold)
		}
		reason = strings.TrimSpace(reason)
		if err := checkReason(reason); err != nil {
			return "", fmt.Errorf("release: %s:%d: the withholding marker's reason %q: %w: %w", name, n+1, reason, err, ErrWithhold)
		}
		if why == "" {
			why = reason
		}
	}
	return why, nil
}

// readsAsMarker reports whether a line says "release … instructor only",
// whatever the case, spacing and punctuation between the words: the
// marker or a near miss of it.
func readsAsMarker(line string) bool {
	words := strings.FieldsFunc(strings.ToLower(line), func(r rune) bool { return !unicode.IsLetter(r) })
	return strings.Contains(" "+strings.Join(words, " ")+" ", " release instructor only ")
}

// checkReason refuses a reason that the placeholder cannot carry whole: an
// empty one, or one with a character that would end the #error's string
// or splice the next line into a comment.
func checkReason(why string) error {
	switch {
	case why == "":
		return errors.New("it is empty: say why the file is withheld")
	case !utf8.ValidString(why):
		return errors.New("it is not UTF-8")
	case strings.ContainsAny(why, "\"\\"), strings.Contains(why, "??"):
		return errors.New(`it holds a '"', a '\' or "??", which the #error's string cannot carry`)
	case readsAsMarker(why):
		return errors.New("it reads as a marker itself")
	}
	for _, r := range why {
		if unicode.IsControl(r) {
			return fmt.Errorf("it holds the control character %U", r)
		}
	}
	return nil
}

// Placeholder returns what the students' copy holds in place of the
// withheld CUDA source src, named name: its opening comment's first line
// and marker, an #error whose string is WithheldMessage of the marker's
// reason, before anything else, the defaults of its defines (each
// "#ifndef NAME", "#define NAME …", "#endif" as three lines of the file)
// and each extern "C" __global__ signature of src, byte for byte, as a
// declaration. It keeps src's line ends (CRLF or LF). The signatures
// cuda2go reads from the placeholder are those it reads from src, or the
// placeholder is refused. A source that is not withheld, or whose marker
// is misplaced, is an error wrapping ErrWithhold. Placeholder of a
// placeholder is the placeholder.
func Placeholder(name string, src []byte) ([]byte, error) {
	why, err := WithheldReason(name, src)
	if err != nil {
		return nil, err
	}
	if why == "" {
		return nil, fmt.Errorf("release: %s: no withholding marker (%q): %w", name, WithholdMarker+"REASON", ErrWithhold)
	}
	text := string(src)
	nl := "\n"
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		nl = "\r\n"
	}
	heads, err := kernelHeads(name, text)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	line := func(s string) { b.WriteString(s + nl) }
	line("// " + path.Base(name) + ": withheld from the students' copy.")
	line("//")
	line(WithholdMarker + why)
	line("//")
	line("// The instructor's copy of the lab holds this file's kernels. This copy")
	line("// keeps what the rest of the lab is built from: each extern \"C\" signature,")
	line("// from which package gpu's launchers are generated (go generate ./gpu), and")
	line("// the defaults of the defines. Compiling it stops at the #error below, so")
	line("// the step fails at NVRTC with the reason and never runs anything else.")
	line("")
	line("#error \"" + WithheldMessage(why) + "\"")
	defaults := defineDefaults(text)
	for _, d := range defaults {
		line("")
		b.WriteString(d)
	}
	for _, h := range heads {
		line("")
		line(h + ";")
	}
	out := []byte(b.String())
	// The launchers must not change: the entries cuda2go reads are the
	// same, in the same order.
	orig, err := cuda2go.Parse(path.Base(name), text)
	if err != nil {
		return nil, fmt.Errorf("release: %s: the instructor's kernels: %w", name, err)
	}
	kept, err := cuda2go.Parse(path.Base(name), string(out))
	if err != nil {
		return nil, fmt.Errorf("release: %s: the placeholder's signatures: %w: %w", name, err, ErrWithhold)
	}
	if !reflect.DeepEqual(orig, kept) {
		return nil, fmt.Errorf("release: %s: the placeholder's extern \"C\" signatures (%s) are not the file's (%s); "+
			"the launchers would change: %w", name, entryNames(kept), entryNames(orig), ErrWithhold)
	}
	// What the placeholder keeps, it keeps as it reads it: a signature
	// that a reader takes for another (an unclosed literal in it) is
	// refused, not guessed at.
	if again, err := kernelHeads(name, string(out)); err != nil || !reflect.DeepEqual(again, heads) {
		return nil, fmt.Errorf("release: %s: the placeholder's signatures do not read as the file's; write each extern \"C\" signature plainly: %w", name, ErrWithhold)
	}
	if again := defineDefaults(string(out)); !reflect.DeepEqual(again, defaults) {
		return nil, fmt.Errorf("release: %s: the placeholder's define defaults do not read as the file's: %w", name, ErrWithhold)
	}
	if again, err := WithheldReason(name, out); err != nil || again != why {
		return nil, fmt.Errorf("release: %s: the placeholder does not keep the marker (%v): %w", name, err, ErrWithhold)
	}
	return out, nil
}

// entryNames lists the names of entries, for a message.
func entryNames(es []cuda2go.Entry) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// defineDefaults returns the define defaults of a CUDA source, each three
// lines as they are in the file (line ends included): "#ifndef NAME",
// "#define NAME …" and "#endif", nothing else between them.
func defineDefaults(src string) []string {
	lines := strings.SplitAfter(src, "\n")
	var out []string
	for i := 0; i+2 < len(lines); i++ {
		name, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "#ifndef ")
		name = strings.TrimSpace(name)
		if !ok || !isIdent(name) {
			continue
		}
		def := strings.TrimSpace(lines[i+1])
		if (def == "#define "+name || strings.HasPrefix(def, "#define "+name+" ")) && !strings.HasSuffix(def, "\\") &&
			strings.TrimSpace(lines[i+2]) == "#endif" && strings.HasSuffix(lines[i+2], "\n") {
			out = append(out, lines[i]+lines[i+1]+lines[i+2])
			i += 2
		}
	}
	return out
}

// isIdent reports whether s is a C identifier.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// kernelHeads returns the text of each extern "C" __global__ signature of
// a CUDA source, byte for byte from "extern" to the last byte before its
// body's "{" (or its ";"), trailing white space dropped: what cuda2go
// reads. Comments and string and character literals are skipped.
func kernelHeads(name, src string) ([]string, error) {
	code := codeMask(src)
	var heads []string
	for i := 0; i < len(src); i++ {
		if !code[i] || !strings.HasPrefix(src[i:], "extern") || (i > 0 && isIdentByte(src[i-1])) {
			continue
		}
		j := i + len("extern")
		if j < len(src) && isIdentByte(src[j]) {
			continue
		}
		for j < len(src) && strings.IndexByte(" \t\r\n", src[j]) >= 0 {
			j++
		}
		if !strings.HasPrefix(src[j:], `"C"`) {
			continue
		}
		end := -1
		for k := j + 3; k < len(src); k++ {
			if code[k] && (src[k] == '{' || src[k] == ';') {
				end = k
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("release: %s: an extern \"C\" declaration has no body: %w", name, ErrWithhold)
		}
		head := strings.TrimRight(src[i:end], " \t\r\n")
		if strings.Contains(head, "__global__") {
			heads = append(heads, head)
		}
		i = end
	}
	return heads, nil
}

// isIdentByte reports whether c can be part of a C identifier.
func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// codeMask returns, for each byte of a C source, whether it is code: not
// in a comment, nor in a string or character literal (a literal's quotes
// are code, its contents are not).
func codeMask(src string) []bool {
	code := make([]bool, len(src))
	for i := 0; i < len(src); {
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n' {
					i++ // a spliced comment goes on on the next line
				} else if src[i] == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n' {
					i += 2
				}
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return code
			}
			i += 2 + end + 2
		case src[i] == '"' || src[i] == '\'':
			q := src[i]
			code[i] = true
			for i++; i < len(src) && src[i] != q && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			if i < len(src) {
				code[i] = true
				i++
			}
		default:
			code[i] = true
			i++
		}
	}
	return code
}
