package grader

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The grader with the hidden checks is built with cgo on exactly when gcc
// is on the PATH and the target is this machine, as the bundle is; the two
// settings never share a binary.
func TestTrustedGraderCgoFollowsGcc(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	assert.Equal(t, "0", cgoSetting(runtime.GOOS, runtime.GOARCH), "no gcc on the PATH")
	gcc := filepath.Join(bin, "gcc")
	if err := os.WriteFile(gcc, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, "1", cgoSetting(runtime.GOOS, runtime.GOARCH), "gcc on the PATH")
	other := "arm64"
	if runtime.GOARCH == other {
		other = "amd64"
	}
	assert.Equal(t, "0", cgoSetting(runtime.GOOS, other), "another architecture: no C compiler for it")
	assert.Equal(t, "0", cgoSetting("plan9", runtime.GOARCH))

	cache := t.TempDir()
	off, on := trustedDir("/repo", cache, "0"), trustedDir("/repo", cache, "1")
	assert.NotEqual(t, off, on, "cgo is part of the cached grader's key")
	assert.NotEqual(t, on, trustedDir("/other", cache, "1"), "so is the repository")
	assert.Equal(t, on, trustedDir("/repo", cache, "1"))
	assert.Equal(t, cache, filepath.Dir(on))
}

// TestKeptTrustedBinaryMarkerGoesFirst: a build of the grader that fails
// leaves no marker, so that the binary left in the folder is never taken
// for one built from the tree the old marker named.
func TestKeptTrustedBinaryMarkerGoesFirst(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	bin := filepath.Join(trustedDir(root, cache, cgoSetting(runtime.GOOS, runtime.GOARCH)), "grade")
	require.NoError(t, os.MkdirAll(filepath.Dir(bin), 0o700))
	require.NoError(t, os.WriteFile(bin, []byte("an older grader"), 0o700))
	require.NoError(t, os.WriteFile(bin+".tree", []byte("a tree graded before"), 0o600))
	_, err := keptTrustedBinary(root, filepath.Join(t.TempDir(), "no-go"), cache)
	require.Error(t, err, "no go command: the build fails")
	_, err = os.Stat(bin + ".tree")
	assert.True(t, os.IsNotExist(err), "the marker of the earlier tree is gone: %v", err)
}
