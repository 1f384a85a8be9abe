package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// childEnv makes the test binary run the stencil command instead of the
// tests, so that a test can run it as a child process under limits.
const childEnv = "STENCIL_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// limited runs the stencil command with args in a child process whose
// address space is capped at kb kilobytes (ulimit -v), so that running out
// of memory exhausts nothing real.
func limited(t *testing.T, kb string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is needed to set ulimit -v for the child process")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command("bash", append([]string{"-c", `ulimit -v "$1" || exit 99; shift; exec "$@"`, "bash", kb, exe}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1", lab.MemoryLimitEnv+"=")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err)
	}
	code = cmd.ProcessState.ExitCode()
	require.NotEqual(t, 99, code, "ulimit -v failed: %s", e.String())
	return code, o.String(), e.String()
}

func atof(t *testing.T, s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v
}

// gigabytes reads "2.2 GB" (or MB) as bytes.
func gigabytes(t *testing.T, s string) float64 {
	v, unit, _ := strings.Cut(s, " ")
	scale := map[string]float64{"GB": 1e9, "MB": 1e6, "TB": 1e12}[unit]
	require.NotZero(t, scale, s)
	return atof(t, v) * scale
}

// A run that cannot fit under a 4 GB address-space limit ends with one
// line naming what it needs, what is available and the largest N that
// fits, and exit status 1: no Go runtime crash.
func TestOutOfMemoryIsOneLine(t *testing.T) {
	fits := regexp.MustCompile(`needs ([0-9.]+ [kMGT]B), ([0-9.]+ [kMGT]?B) available \((?:address-space limit|MemAvailable)\): `)
	for _, tc := range []struct {
		args []string
		need string // 2 float32 grids of 1600³; 6 float64 fields of 65002²
		fit  *regexp.Regexp
		// bytes per point, dimensions and ghost points per side of the
		// largest grid that fits
		perPoint, dims, pad float64
	}{
		{[]string{"run", "-n", "1600", "-reps", "1"}, "32.8 GB", regexp.MustCompile(`N ≤ (\d+) fits$`), 2 * 4, 3, 0},
		{[]string{"sediment", "-nx", "65000", "-ny", "65000", "-steps", "1"}, "202.8 GB", regexp.MustCompile(`-nx = -ny ≤ (\d+) fits$`), 6 * 8, 2, 2},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			code, out, errOut := limited(t, "4000000", tc.args...)
			assert.Equal(t, 1, code, errOut)
			assert.Empty(t, out)
			assert.NotContains(t, errOut, "fatal error")
			assert.NotContains(t, errOut, "goroutine")
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			require.Len(t, lines, 1, errOut)
			m := fits.FindStringSubmatch(lines[0])
			require.NotNil(t, m, lines[0])
			assert.Equal(t, tc.need, m[1])
			f := tc.fit.FindStringSubmatch(lines[0])
			require.NotNil(t, f, lines[0])
			// The largest side fits the available bytes, given to 0.1 GB,
			// and the next does not.
			avail, n := gigabytes(t, m[2]), atof(t, f[1])
			assert.LessOrEqual(t, tc.perPoint*math.Pow(n+tc.pad, tc.dims), avail+0.05e9)
			assert.Greater(t, tc.perPoint*math.Pow(n+1+tc.pad, tc.dims), avail-0.05e9)
		})
	}
}

// Sizes are printed from the values given: -nx 9223372036854775806 used
// to be printed as -9223372036854775808 after nx+2 overflowed.
func TestOverflowedSizesArePrintedAsGiven(t *testing.T) {
	for _, args := range [][]string{
		{"sediment", "-nx", "9223372036854775806", "-ny", "2"},
		{"sediment", "-nx", "3", "-ny", "9223372036854775807"},
		{"run", "-n", "9223372036854775807"},
		{"bench", "-n", "2097152"},
	} {
		code, out, errOut := stencil(args...)
		assert.Equal(t, 2, code, "%q: %s", args, errOut)
		assert.Empty(t, out)
		assert.Contains(t, errOut, args[2], "the size as given")
		assert.NotRegexp(t, `-\d`, errOut, "%q: no negative size", args)
		assert.Contains(t, errOut, fmt.Sprintf("exceeds the limit of %d points", int64(lab.MaxPoints)), "%q", args)
	}
}
