package gpu

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// kernelParams returns the C types of the parameters of the extern "C"
// __global__ function entry in src: "pointer" for any pointer, else the
// type with its qualifiers dropped ("int", "float", "long long", …).
func kernelParams(src, entry string) ([]string, error) {
	re := regexp.MustCompile(`extern\s+"C"\s+__global__\s+(?:void\s+)?(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:void\s+)?` +
		regexp.QuoteMeta(entry) + `\s*\(([^)]*)\)`)
	m := re.FindStringSubmatch(src)
	if m == nil {
		return nil, fmt.Errorf("no extern \"C\" __global__ function %s", entry)
	}
	var kinds []string
	for _, p := range strings.Split(m[1], ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if strings.Contains(p, "*") {
			kinds = append(kinds, "pointer")
			continue
		}
		words := strings.Fields(p)
		var typ []string
		for _, w := range words[:len(words)-1] { // the last word is the name
			if w != "const" && w != "__restrict__" && w != "volatile" {
				typ = append(typ, w)
			}
		}
		kinds = append(kinds, strings.Join(typ, " "))
	}
	return kinds, nil
}

func TestKernelParams(t *testing.T) {
	got, err := kernelParams(`extern "C" __global__ void __launch_bounds__(256, 2)
k(const float* __restrict__ in, float *out, int n, long long m, const unsigned long long s, float c0)`, "k")
	require.NoError(t, err)
	assert.Equal(t, []string{"pointer", "pointer", "int", "long long", "unsigned long long", "float"}, got)
	_, err = kernelParams(`__global__ void k(int n)`, "k")
	assert.Error(t, err, "not extern \"C\"")
}

// Every 3D step's kernel takes exactly the arguments its launcher passes,
// in count and type: the signature parsed from the step's .cu file against
// the argument list the gpu package builds for it.
func TestLaunchersMatchTheirKernels(t *testing.T) {
	require.NotEmpty(t, Steps3())
	for _, step := range Steps3() {
		c, err := newConfig3(step, Options{})
		require.NoError(t, err, step)
		_, src, err := c.source()
		require.NoError(t, err, step)
		for _, nx := range []int{512, 130} { // float4 rows and scalar rows
			g := c.geometry(64, 64, nx, 8)
			a := c.args(1, 2, 64, 64, nx, lab.DistinctCoeffs(), g)
			want, err := kernelParams(src, c.entry(nx))
			require.NoError(t, err, "%s: %s", step, c.entry(nx))
			assert.Equal(t, want, a.kinds, "%s: the launcher of %s passes other arguments than the kernel takes", step, c.entry(nx))
		}
	}
}
