package sediment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleReport() *BenchReport {
	return &BenchReport{Device: "Test GPU", Arch: "sm_90", SMs: 132, Nx: 4096, Ny: 4096, Reps: 20, CopyGBs: 4000,
		Rows: []BenchRow{
			{Kernel: KernelH, Variant: "baseline", Block: "32×4", Ms: 0.5, GFLOPs: 1845.5, Regs: 40, Occupancy: 0.75,
				BytesPerPoint: 40, GBs: 1342.2, CopyShare: 0.3356},
			{Kernel: KernelH, Variant: "opt3", Block: "34×6", Ms: 0.4, GFLOPs: 2306.9, Regs: 38, SharedBytes: 3264,
				Occupancy: -1, BytesPerPoint: 40, GBs: 1677.7, CopyShare: 0.4194},
			{Kernel: KernelS, Variant: "opt3", Block: "34×6", Ms: 0.4, GFLOPs: 1426.1, Regs: 38, SharedBytes: 3264,
				Occupancy: 0.5, BytesPerPoint: 40, GBs: 1677.7, CopyShare: 0.4194},
			{Kernel: KernelFused, Variant: "best", Block: "32×4", Config: "RY=32 WARPS=4", Ms: 0.2, GFLOPs: 7465.8,
				Regs: 96, Occupancy: 0.25, BytesPerPoint: 48, GBs: 4026.5, CopyShare: 1.0066},
		}}
}

func TestWriteTableShowsOursBesideThePaper(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, sampleReport()))
	out := buf.String()
	lines := strings.Split(out, "\n")
	find := func(prefix string, after int) string {
		for _, l := range lines[after:] {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		return ""
	}
	assert.Contains(t, lines[0], "Test GPU (sm_90, 132 SMs), 4096×4096 mesh")
	assert.Contains(t, lines[0], "4000 GB/s")
	base := find("Baseline", 0)
	assert.Contains(t, base, "1845.5")
	assert.Contains(t, base, "33.6%")
	assert.Contains(t, base, " 88.43 55 0.562  40%", "the K20's Baseline h row: 88.43/55·40 GB/s of 160.88")
	assert.Contains(t, base, " 76.46 55 0.333  39%", "the GTX 590's Baseline h row: 76.46/55·40 GB/s of 142.94")
	opt3h := find("OPT-3", 0)
	assert.Contains(t, opt3h, "190.45 34 0.656  86%")
	assert.Contains(t, opt3h, "3264 B")
	assert.Contains(t, opt3h, "n/a", "unknown occupancy")
	var sBlock int
	for k, l := range lines {
		if strings.HasPrefix(l, "s-kernel") {
			sBlock = k
		}
	}
	require.NotZero(t, sBlock)
	opt3s := find("OPT-3", sBlock)
	assert.Contains(t, opt3s, "110.55")
	assert.Contains(t, opt3s, "—", "our copy of the paper has no GTX 590 OPT-3 s row")
	assert.Contains(t, out, "h+s-kernel (89 flops and 48 bytes a point)")
	assert.Contains(t, find("best", 0), "100.7%")
}

func TestLoadBenchRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	raw, err := json.Marshal(sampleReport())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	r, err := LoadBench(path)
	require.NoError(t, err)
	assert.Equal(t, sampleReport(), r)
	row, ok := r.Row(KernelFused, "best")
	require.True(t, ok)
	assert.Equal(t, 48, row.BytesPerPoint)

	require.NoError(t, os.WriteFile(path, []byte(`{"nx": 0}`), 0o644))
	_, err = LoadBench(path)
	assert.ErrorIs(t, err, ErrInput)
	require.NoError(t, os.WriteFile(path, []byte(`{`), 0o644))
	_, err = LoadBench(path)
	assert.Error(t, err)
	_, err = LoadBench(filepath.Join(dir, "absent.json"))
	assert.Error(t, err)
}

func TestKernelCost(t *testing.T) {
	// The paper's counts, 55 and 34 flops a point, and our traffic: four
	// arrays of doubles read and one written, two for the fused kernel.
	for k, want := range map[string][2]int{KernelH: {55, 40}, KernelS: {34, 40}, KernelFused: {89, 48}, "ghost": {0, 0}} {
		flops, bytes := KernelCost(k)
		assert.Equal(t, want, [2]int{flops, bytes}, k)
	}
}

func TestVariantNames(t *testing.T) {
	assert.Equal(t, []string{"Baseline", "OPT-1", "OPT-2", "OPT-3", "best"},
		[]string{VersionName("baseline"), VersionName("opt1"), VersionName("opt2"), VersionName("opt3"), VersionName("best")})
	for _, v := range Variants {
		assert.NoError(t, CheckVariant(v))
	}
	err := CheckVariant("opt4")
	assert.ErrorIs(t, err, ErrInput)
	assert.Contains(t, err.Error(), "baseline, opt1, opt2, opt3, best")
}
