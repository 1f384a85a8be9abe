package hub

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"3GiB", 3 << 30}, {"512MiB", 512 << 20}, {"64KiB", 64 << 10}, {"1000", 1000}} {
		got, err := parseSize(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	for _, bad := range []string{"", "0", "-1GiB", "3GB", "GiB", "99999999999GiB"} {
		_, err := parseSize(bad)
		assert.Error(t, err, bad)
	}
}

// TestPassword: 20 characters of the alphabet, none read alike, and two
// draws differ.
func TestPassword(t *testing.T) {
	a, err := password()
	require.NoError(t, err)
	b, err := password()
	require.NoError(t, err)
	assert.Len(t, a, 20)
	assert.NotEqual(t, a, b)
	assert.False(t, strings.ContainsAny(a+b, "0O1lI"), "%s %s", a, b)
}

// TestConfigParses checks that the hub's configuration is Python that
// parses, and that it reads every setting hub.json has.
func TestConfigParses(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3")
	}
	p := filepath.Join(t.TempDir(), "jupyterhub_config.py")
	require.NoError(t, os.WriteFile(p, configPy, 0o600))
	out, err := exec.Command(py, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", p).CombinedOutput()
	require.NoError(t, err, string(out))
	for _, key := range []string{"ip", "port", "hub_port", "proxy_api_port", "users", "default_url", "environment", "limits", "max_servers", "max_spawns", "mem_bytes", "cpus", "procs", "file_bytes"} {
		assert.Contains(t, string(configPy), `"`+key+`"`, "the configuration reads %s", key)
	}
}

func TestUsage(t *testing.T) {
	var out, errb strings.Builder
	assert.Equal(t, 2, Main(nil, &out, &errb))
	assert.Equal(t, 2, Main([]string{"nope"}, &out, &errb))
	assert.Equal(t, 2, Main([]string{"setup"}, &out, &errb), "setup needs -roster")
}
