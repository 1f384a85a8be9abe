// The cache of test binaries: its folders pruned by age, count and size.

package grader

import (
	"os"
	"path/filepath"
	"sort"
	"time"
)

// pruneCache keeps the keep most recently used folders of test binaries in
// cache, and none unused for longer than maxAge: each repository and each
// submission graded has a folder of its own. It also keeps the folders
// within maxCacheBytes together (pruneCacheSize).
func pruneCache(cache string, keep int, maxAge time.Duration) {
	pruneCacheSize(cache, keep, maxAge, maxCacheBytes)
}

// maxCacheBytes bounds the folders of a cache together.
const maxCacheBytes = 4 << 30

// pruneCacheSize removes from cache the folders beyond the keep most
// recently used, those unused for longer than maxAge, and, least recently
// used first, those beyond maxBytes together. A folder's time is its last
// use (build touches it).
func pruneCacheSize(cache string, keep int, maxAge time.Duration, maxBytes int64) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	type dir struct {
		path string
		mod  time.Time
		size int64
	}
	var dirs []dir
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() {
			p := filepath.Join(cache, e.Name())
			dirs = append(dirs, dir{p, info.ModTime(), folderSize(p)})
		}
	}
	sort.Slice(dirs, func(a, b int) bool { return dirs[a].mod.After(dirs[b].mod) })
	var total int64
	for i, d := range dirs {
		total += d.size
		if i >= keep || time.Since(d.mod) > maxAge || (total > maxBytes && i > 0) {
			_ = os.RemoveAll(d.path)
		}
	}
}

// folderSize is the bytes of the regular files under p.
func folderSize(p string) int64 {
	var n int64
	_ = filepath.WalkDir(p, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
