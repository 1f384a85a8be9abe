package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sediment"
)

// The command line is outside input: whatever a flag holds, a command
// ends with status 0, 1 or 2, and a failure prints one clean line.

// smallMemory caps the memory the lab assumes available for a fuzz target,
// so that a size that parses runs quickly or is refused.
func smallMemory(f *testing.F) {
	old := lab.MemoryLimit
	lab.MemoryLimit = 16 << 20
	f.Cleanup(func() { lab.MemoryLimit = old })
}

// cleanExit fails t unless a command's exit and output are clean.
func cleanExit(t *testing.T, args []string, code int, stdout, stderr string) {
	t.Helper()
	switch {
	case code != 0 && code != 1 && code != 2:
		t.Fatalf("%q: exit status %d", args, code)
	case code == 0:
		return
	case stdout != "":
		t.Fatalf("%q: exit %d with output %q", args, code, stdout)
	}
	cleanLine(t, args, stderr)
	// Sizes are printed from the values given, never from an overflowed
	// product: a negative number only where the user gave one.
	given := map[string]bool{}
	for _, a := range args {
		given[a] = true
		if v, err := strconv.ParseInt(a, 0, 64); err == nil { // as package flag reads -n: "-01" is -1
			given[strconv.FormatInt(v, 10)] = true
		}
	}
	// Input quoted back (%q) is the user's own text.
	for _, m := range negative.FindAllStringSubmatch(quoted.ReplaceAllString(stderr, `""`), -1) {
		if neg := m[1]; !given[neg] {
			t.Fatalf("%q: error %q prints %s, which the command line does not hold", args, stderr, neg)
		}
	}
}

// negative matches a negative whole number in a message, quoted matches
// a quoted string.
var (
	negative = regexp.MustCompile(`(?:^|[^\w.-])(-\d+)\b`)
	quoted   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// cleanLine fails t unless msg is one line of valid UTF-8, ending with a
// newline, that is not a panic or a Go runtime trace.
func cleanLine(t *testing.T, what any, msg string) {
	t.Helper()
	body, ok := strings.CutSuffix(msg, "\n")
	switch {
	case !ok || body == "":
		t.Fatalf("%q: error %q is not one line", what, msg)
	case strings.Contains(body, "\n"):
		t.Fatalf("%q: error spans lines: %q", what, msg)
	case !utf8.ValidString(body):
		t.Fatalf("%q: error is not valid UTF-8: %q", what, msg)
	case strings.Contains(body, "panic") || strings.Contains(body, "goroutine "):
		t.Fatalf("%q: error %q", what, msg)
	}
}

func FuzzRunSizeFlag(f *testing.F) {
	smallMemory(f)
	for _, s := range []string{"5", "3", "2", "-1", "0", "", " 7", "1e3", "0x10", "2000", "9223372036854775806", "99999999999999999999", "12\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, n string) {
		args := []string{"run", "-n", n, "-reps", "1", "-check"}
		code, out, errOut := stencil(args...)
		cleanExit(t, args, code, out, errOut)
	})
}

func FuzzRunTileFlag(f *testing.F) {
	for _, s := range []string{"0", "3", "4", "8", "10", "11", "1", "-4", "1024", "x", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tile string) {
		args := []string{"run", "-backend", "sim", "-kernel", "tiled", "-n", "7", "-tile", tile, "-reps", "1"}
		code, out, errOut := stencil(args...)
		cleanExit(t, args, code, out, errOut)
	})
}

func FuzzSedimentSizeFlags(f *testing.F) {
	smallMemory(f)
	for _, s := range [][2]string{{"8", "8"}, {"1", "1"}, {"0", "5"}, {"-3", "2"}, {"65000", "65000"},
		{"9223372036854775806", "2"}, {"4096", "x"}, {"", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, nx, ny string) {
		args := []string{"sediment", "-nx", nx, "-ny", ny, "-steps", "0"}
		code, out, errOut := stencil(args...)
		cleanExit(t, args, code, out, errOut)
	})
}

// The specs of stencil bench (-variant, -kernels, -tile, -n) and stencil
// sediment (-variant, -tune) are parsed before any GPU is touched.
func FuzzSpecs(f *testing.F) {
	for _, s := range []string{"fast", "fast:FAST_BY=16", "basic:block=8x8x4", "basic:block=8×8×4,tile=8", "tiled:tile=0",
		"coarsened:tile=x", "basic:block=1x2", "fast:=", "fast:A=1,,B", "register_tiled", "16", "basic=8,coarsened=16",
		"basic=", "=8", "32x2,32x4f", "32x2x3f", "x", "1x99", "64,128", "2", "best", "opt9", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(what string, err error) {
			if err != nil {
				cleanLine(t, what+" "+s, err.Error()+"\n")
			}
		}
		_, err := parseVariant(s)
		check("-variant", err)
		_, _, err = parseTiles(s)
		check("-tile", err)
		_, err = parseSizes(s)
		check("-n", err)
		_, err = parseTune(s)
		check("-tune", err)
		check("sediment -variant", sediment.CheckVariant(s))
	})
}
