package gradebook

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A gradebook the grader writes carries a MAC: HMAC-SHA256 of
// gradebook.json's bytes, keyed by the instructor's key, in
// gradebook.json.mac beside it. `grade merge` believes a part only when
// its MAC is right, so that a part forged or edited in the class folder,
// on a cluster's shared disk or on its way back from a GPU machine is
// refused. The key is kept outside any class folder and any repository:
// in stencillab-grade/instructor.key of the user's configuration folder
// (os.UserConfigDir: $XDG_CONFIG_HOME or ~/.config on Linux,
// ~/Library/Application Support on macOS), or in the file named by
// $STENCILLAB_GRADE_KEY. It is made on first use, 32 random bytes in hex,
// readable by its owner alone; every machine whose parts are merged needs
// a copy of it.

// EnvKey names a file that holds the instructor's key, instead of the
// one in the user's configuration folder.
const EnvKey = "STENCILLAB_GRADE_KEY"

// MACSuffix is the suffix of the file that holds a gradebook's MAC.
const MACSuffix = ".mac"

var (
	keyMu   sync.Mutex
	keyPath string
	keyVal  []byte
)

// KeyPath is where the instructor's key is kept: $STENCILLAB_GRADE_KEY,
// or stencillab-grade/instructor.key in the user's configuration folder.
func KeyPath() (string, error) {
	if p := os.Getenv(EnvKey); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("the instructor's key: no configuration folder (%v): set %s to a file", err, EnvKey)
	}
	return filepath.Join(dir, "stencillab-grade", "instructor.key"), nil
}

// InstructorKey returns the instructor's key, making it on first use. A
// key file that others may read or write, or that another user owns, is
// refused.
func InstructorKey() ([]byte, error) {
	p, err := KeyPath()
	if err != nil {
		return nil, err
	}
	keyMu.Lock()
	defer keyMu.Unlock()
	if p == keyPath && keyVal != nil {
		return keyVal, nil
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, fmt.Errorf("the instructor's key: %w", err)
		}
		raw := make([]byte, 32)
		if _, err := rand.Read(raw); err != nil {
			return nil, fmt.Errorf("the instructor's key: %w", err)
		}
		if werr := writeNewKey(p, raw); werr != nil && !errors.Is(werr, fs.ErrExist) {
			return nil, fmt.Errorf("the instructor's key: %w", werr)
		}
		b, err = os.ReadFile(p) // made by this run, or by another at the same time
	}
	if err != nil {
		return nil, fmt.Errorf("the instructor's key: %w", err)
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("the instructor's key: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("the instructor's key %s may be read or written by others (mode %04o): chmod 600 it, or remove it to make a new one", p, st.Mode().Perm())
	}
	if ownedByOther(st) {
		return nil, fmt.Errorf("the instructor's key %s belongs to another user", p)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("the instructor's key %s is not at least 16 bytes in hex", p)
	}
	keyPath, keyVal = p, key
	return key, nil
}

// MAC is the MAC of b under key, in hex.
func MAC(key, b []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))
}

// checkMAC reports whether mac (the file's text) is b's MAC under key.
func checkMAC(key, b, mac []byte) bool {
	want := MAC(key, b)
	return hmac.Equal([]byte(want), bytes.TrimSpace(mac))
}

// writeNewKey writes raw in hex into a new file p, readable by its owner
// alone; a file already there is left as it is (fs.ErrExist).
func writeNewKey(p string, raw []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(hex.EncodeToString(raw) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
