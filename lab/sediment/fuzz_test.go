package sediment

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Sediment bench reports are outside input: LoadBench never panics, and a
// report it refuses for its content wraps ErrInput or is a JSON error.
func FuzzLoadBench(f *testing.F) {
	if b, err := os.ReadFile("../../docs/sediment_h200.json"); err == nil {
		f.Add(b)
	}
	for _, s := range []string{``, `{}`, `{"nx": 4096, "ny": 4096}`, `{"nx": 1, "ny": 1, "rows": [{}]}`, `{"nx": -1}`, `[`, `null`, `{"rows": null}`} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "report.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := LoadBench(path)
		if err != nil {
			if errors.Is(err, ErrInput) || err.Error() != "" {
				return
			}
			t.Fatalf("empty error")
		}
		if r.Nx < 1 || r.Ny < 1 || len(r.Rows) == 0 {
			t.Fatalf("accepted a report without mesh or rows: %+v", r)
		}
		_ = WriteTable(discard{}, r)
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
