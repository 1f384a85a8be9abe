package data

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEBISUTable(t *testing.T) {
	r := EBISURun{Device: "card", Rows: []EBISURow{{N: 512, Steps: 24,
		Fast: 400e9, Temporal: 900e9, EBISU: 600e9, EBISUVariant: "a100/artifact",
		Star13: 210e9, Temporal13: 150e9}}}
	out := EBISUTable([]EBISURun{r})
	lines := strings.Split(out, "\n")
	require.GreaterOrEqual(t, len(lines), 5)
	assert.Equal(t, "card, Gpoints/s", lines[0])
	seven, thirteen := strings.Fields(lines[3]), strings.Fields(lines[4])
	// 7-point: the faster lab step (temporal) over EBISU.
	assert.Equal(t, []string{"512", "24", "7-point", "400", "900", "600", "a100/artifact", fmt.Sprintf("%.2f×", 900.0/600)}, seven)
	// 13-point: EBISU has no gated run.
	assert.Equal(t, []string{"512", "24", "13-point", "210", "150", "-", "none", "passed", "-"}, thirteen)
}

// The committed comparisons read, each row of the H200's with the lab's
// four steps measured.
func TestRecordedEBISU(t *testing.T) {
	rs, err := RecordedEBISU()
	require.NoError(t, err)
	require.NotEmpty(t, rs)
	for _, r := range rs {
		require.NotEmpty(t, r.Device)
		require.NotEmpty(t, r.Rows, r.Device)
		for _, w := range r.Rows {
			assert.Positive(t, w.Fast*w.Temporal*w.Star13*w.Temporal13, "%s N = %d", r.Device, w.N)
		}
	}
}
