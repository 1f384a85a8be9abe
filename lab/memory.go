package lab

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
)

// ErrMemory is wrapped by every error about grids that would not fit in
// the memory the process can still get.
var ErrMemory = errors.New("not enough memory")

// MemoryLimit, when positive, caps the bytes the lab assumes it may
// allocate, below what the machine reports. The environment variable
// STENCIL_MEMORY_LIMIT (a number of bytes) does the same from outside;
// the smaller of the two applies. On systems without /proc/meminfo these
// are the only bounds.
var MemoryLimit uint64

// MemoryLimitEnv names the environment variable read by AvailableMemory.
const MemoryLimitEnv = "STENCIL_MEMORY_LIMIT"

// checkAbove is the size below which an allocation is not checked: reading
// /proc for every small grid would cost more than the grid.
const checkAbove = 64 << 20

// Memory is what the process can still allocate, and what bounds it.
type Memory struct {
	Bytes  uint64 // bytes available; math.MaxUint64 when nothing is known
	Source string // what bounds it: "MemAvailable", "address-space limit", "STENCIL_MEMORY_LIMIT", "lab.MemoryLimit"
}

// Known reports whether any bound was found.
func (m Memory) Known() bool { return m.Bytes != math.MaxUint64 }

// memoryMu serialises the reads of the system's figures.
var memoryMu sync.Mutex

// AvailableMemory returns the bytes this process can still allocate: the
// smallest of MemAvailable (/proc/meminfo on Linux), the headroom left
// under an address-space limit (RLIMIT_AS, ulimit -v) and the configured
// limits (MemoryLimit, STENCIL_MEMORY_LIMIT). A malformed
// STENCIL_MEMORY_LIMIT is an error.
func AvailableMemory() (Memory, error) {
	memoryMu.Lock()
	defer memoryMu.Unlock()
	m := Memory{Bytes: math.MaxUint64}
	take := func(b uint64, src string) {
		if b < m.Bytes {
			m = Memory{Bytes: b, Source: src}
		}
	}
	if MemoryLimit > 0 {
		take(MemoryLimit, "lab.MemoryLimit")
	}
	if s := strings.TrimSpace(os.Getenv(MemoryLimitEnv)); s != "" {
		b, err := ParseBytes(s)
		if err != nil {
			return m, fmt.Errorf("lab: %s=%q: %w", MemoryLimitEnv, s, err)
		}
		take(b, MemoryLimitEnv)
	}
	systemMemory(take)
	return m, nil
}

// ParseBytes reads a byte count: a whole number, optionally followed by a
// unit of k, M, G or T (powers of 1000) or KiB, MiB, GiB, TiB (powers of
// 1024), e.g. "4000000000", "4G", "3.5GiB". It never panics; the error
// says what it wants.
func ParseBytes(s string) (uint64, error) {
	bad := fmt.Errorf("want a byte count such as 4000000000, 4G or 3.5GiB, not %q", s)
	t := strings.TrimSpace(s)
	mult := 1.0
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1}}
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	if t == "" || strings.ContainsAny(t, "eEpPxX_+-") {
		return 0, bad
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, bad
	}
	b := v * mult
	if b >= 1<<63 {
		return 0, fmt.Errorf("byte count %q is too large", s)
	}
	return uint64(b), nil
}

// HumanBytes writes a byte count in decimal units, as the errors give it:
// 32.8 GB, 512.0 MB, 12 B.
func HumanBytes(b uint64) string {
	switch {
	case b >= 1e12:
		return fmt.Sprintf("%.1f TB", float64(b)/1e12)
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(b)/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(b)/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(b)/1e3)
	}
	return fmt.Sprintf("%d B", b)
}

// CheckMemory returns nil when need bytes fit in AvailableMemory, else an
// error wrapping ErrMemory that names both numbers and, when fit is not
// nil, what would fit: "needs 32.8 GB, 21.4 GB available (MemAvailable):
// N ≤ 1270 fits". fit gets the available bytes and writes the largest
// size that fits them. what starts the message, e.g. "-n 1600".
func CheckMemory(what string, need uint64, fit func(avail uint64) string) error {
	m, err := AvailableMemory()
	if err != nil {
		return err
	}
	if !m.Known() || need <= m.Bytes {
		return nil
	}
	msg := fmt.Sprintf("%s: needs %s, %s available (%s)", what, HumanBytes(need), HumanBytes(m.Bytes), m.Source)
	if fit != nil {
		if f := fit(m.Bytes); f != "" {
			msg += ": " + f
		}
	}
	return &memoryError{msg}
}

// memoryError is an error about memory whose message names the numbers;
// it matches ErrMemory with errors.Is.
type memoryError struct{ msg string }

// Error returns the message.
func (e *memoryError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrMemory) true.
func (e *memoryError) Is(target error) bool { return target == ErrMemory }

// LargestSide returns the largest n for which perPoint·n^dims bytes fit in
// avail, and 0 when not even n = 1 does. dims is 1, 2 or 3.
func LargestSide(avail uint64, perPoint float64, dims int) int {
	if perPoint <= 0 || dims < 1 {
		return 0
	}
	n := int(math.Pow(float64(avail)/perPoint, 1/float64(dims)))
	fits := func(n int) bool { return perPoint*math.Pow(float64(n), float64(dims)) <= float64(avail) }
	for n > 0 && !fits(n) {
		n--
	}
	for fits(n + 1) {
		n++
	}
	return n
}

// CubeFit writes the largest cube side that fits: "N ≤ 1270 fits", or
// that no grid fits, for a run of grids float32 grids of N³ points.
func CubeFit(grids int) func(uint64) string {
	return func(avail uint64) string {
		n := LargestSide(avail, 4*float64(grids), 3)
		if n < 3 {
			return "not even N = 3 fits"
		}
		return fmt.Sprintf("N ≤ %d fits", n)
	}
}

// checkAlloc checks an allocation of n elements of size bytes each, named
// by what, before it is made. Small ones pass unchecked.
func checkAlloc(what string, n, size int) error {
	need := uint64(n) * uint64(size)
	if need < checkAbove {
		return nil
	}
	return CheckMemory(what, need, nil)
}

// gridBytes returns the bytes of a float32 grid of nz×ny×nx points.
func gridBytes(nz, ny, nx int) uint64 { return 4 * uint64(nz) * uint64(ny) * uint64(nx) }
