package lab

import (
	"strings"
	"testing"
)

// STENCIL_MEMORY_LIMIT is outside input: any value parses or gives a
// one-line error, and a value that parses reads back.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"4000000000", "4G", "3.5GiB", "1 kB", "", "-1", "NaN", "1e9", "18446744073709551616", "0.5B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBytes(s)
		if err != nil {
			if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("%q: error %q", s, msg)
			}
			return
		}
		if b >= 1<<63 {
			t.Fatalf("%q: %d bytes passed the bound", s, b)
		}
	})
}
