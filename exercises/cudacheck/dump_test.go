package cudacheck

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
)

// envDumpPTX names the folder TestDumpPTX writes the PTX of the fixtures
// to (on the GPU machine), from the fixtures in STENCILLAB_CUDA_FIXTURES:
// what NVRTC makes of them, for the PTX reader's tests (testdata/ptx).
const envDumpPTX = "STENCILLAB_PTX_OUT"

func TestDumpPTX(t *testing.T) {
	out, from := os.Getenv(envDumpPTX), os.Getenv(envFixtures)
	if out == "" || from == "" {
		t.Skipf("writes the fixtures' PTX where %s says, from %s", envDumpPTX, envFixtures)
	}
	d, err := gpu.Default()
	if err != nil {
		t.Skipf("needs a GPU: %v", err)
	}
	var summary []string
	err = filepath.WalkDir(from, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(p, ".cu") {
			return err
		}
		id := filepath.Base(filepath.Dir(p))
		s, ok := Lookup(id)
		if !ok {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var defs []gpu.Define
		if s.Define != "" {
			defs = append(defs, gpu.Define{Name: s.Define, Value: strconv.Itoa(s.Tile)})
		}
		rel, _ := filepath.Rel(from, p)
		parts := strings.Split(strings.TrimSuffix(rel, ".cu"), string(filepath.Separator))
		name := strings.ReplaceAll(parts[0]+"_"+parts[len(parts)-1], "-", "_")
		ptx, err := d.SourcePTX(s.File, string(src), defs)
		if err != nil {
			summary = append(summary, fmt.Sprintf("%s: %v", name, err))
			return nil
		}
		if err := os.WriteFile(filepath.Join(out, name+".ptx"), []byte(ptx), 0o644); err != nil {
			return err
		}
		e, err := parsePTX(ptx, s.Entry())
		if err != nil {
			summary = append(summary, fmt.Sprintf("%s: parse: %v", name, err))
			return nil
		}
		_, ierr := instrumentPTX(ptx, s.Entry(), 1<<40)
		summary = append(summary, fmt.Sprintf("%s: %d instructions, loops %v, shared %v, feeds %v, planeLoop %v/%v, audit %q, instrument %v",
			name, len(e.body), e.loops, e.shared, e.sharedFeedsOutput(), e.planeLoop(false), e.planeLoop(true), e.audit(s.Kind == Challenge), ierr))
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(out, "summary.txt"), []byte(strings.Join(summary, "\n")+"\n"), 0o644))
}
