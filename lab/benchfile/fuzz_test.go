package benchfile

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// Bench files are outside input: Read never panics, and whatever it
// refuses wraps ErrInvalid (or is a read error); what it accepts passes
// Check.
func FuzzRead(f *testing.F) {
	if b, err := os.ReadFile("../../figures/data/bench_h200.json"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{``, `[]`, `{}`, `{"results": []}`, `[{"kernel":"fast","n":512,"median_ms":1,"gbps":2,"gflops":3}]`,
		`{"kernel":"basic","n":2,"median_ms":1,"gbps":1,"gflops":1}`, `{"results": [{"kernel":"x","n":3,"median_ms":1e999}]}`, `[1, 2`, `null`,
		"{\"kernel\":\"a\",\"n\":3,\"median_ms\":1,\"gbps\":1,\"gflops\":1}\n{\"results\":null}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			if strings.HasPrefix(err.Error(), "panic") {
				t.Fatal(err)
			}
			return
		}
		if len(file.Results) == 0 {
			t.Fatal("accepted a file without results")
		}
		for i, r := range file.Results {
			if err := r.Check(); err != nil {
				t.Fatalf("result %d accepted but invalid: %v", i, err)
			}
		}
	})
}
