package multi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNCCLDisablesNVLS checks that loading NCCL sets NCCL_NVLS_ENABLE=0
// first, whether or not NCCL is there, overriding another value.
func TestNCCLDisablesNVLS(t *testing.T) {
	t.Setenv(EnvNVLS, "1")
	t.Setenv(EnvLibNCCL, filepath.Join(t.TempDir(), "libnccl-missing.so"))
	if ncclState.loaded {
		require.NoError(t, loadNCCL())
		require.NoError(t, disableNVLS())
	} else {
		err := loadNCCL()
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrNoNCCL)
		assert.Contains(t, err.Error(), EnvLibNCCL)
		assert.Equal(t, 1, strings.Count(err.Error(), "\n")+1, "one line")
	}
	assert.Equal(t, "0", os.Getenv(EnvNVLS))
}

func TestNCCLVersion(t *testing.T) {
	for _, c := range []struct {
		v    int
		want string
	}{{22809, "2.28.9"}, {21903, "2.19.3"}, {2708, "2.7.8"}, {2604, "2.6.4"}} {
		assert.Equal(t, c.want, ncclVersionString(c.v))
	}
	assert.NoError(t, checkNCCLVersion("libnccl.so.2", 2700))
	assert.NoError(t, checkNCCLVersion("libnccl.so.2", 22809))
	err := checkNCCLVersion("libnccl.so.2", 2604)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "2.6.4")
	assert.Contains(t, err.Error(), "2.7.0")
	assert.Contains(t, err.Error(), EnvLibNCCL)
}

func TestNCCLCandidates(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	assert.Equal(t, []string{"libnccl.so.2"}, ncclCandidates(get))
	env[EnvLibNCCL] = "/opt/nccl/lib/libnccl.so.2"
	assert.Equal(t, []string{"/opt/nccl/lib/libnccl.so.2"}, ncclCandidates(get))
}

func TestNCCLCheck(t *testing.T) {
	assert.NoError(t, ncclCheck("ncclSend", 0))
	err := ncclCheck("ncclSend", 5)
	var ne *NCCLError
	require.True(t, errors.As(err, &ne))
	assert.Equal(t, "ncclSend", ne.Call)
	assert.Equal(t, 5, ne.Code)
	assert.Contains(t, err.Error(), "ncclSend")
}
