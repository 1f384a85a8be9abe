package gpu

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"stencillab.dev/lab"
)

// This file is the timed choice of a tuned step's setting: the first run of
// a step on a device at a size times the settings its parameter table marks
// as tried (Param.Tried, and the tiles of a tuning that tries tiles), keeps
// the fastest whose whole output matched the host's reference, and caches
// the choice under the user's cache directory, keyed by the device's name,
// the grid's size class, the time steps and a hash of the kernels' source.
// No setting is listed twice: the candidates are derived from the one table
// of each step.

// Setting is one setting of a tuned step: its tile (0: the step's default)
// and its defines.
type Setting struct {
	Tile    int      `json:"tile,omitempty"`
	Defines []Define `json:"defines,omitempty"`
}

// String writes the setting as `stencil bench -variant` takes it after the
// step's name: "FAST_BY=2,FAST_WX=16,tile=256"; "default" for none.
func (s Setting) String() string {
	var parts []string
	for _, d := range s.Defines {
		parts = append(parts, d.String())
	}
	if s.Tile > 0 {
		parts = append(parts, "tile="+strconv.Itoa(s.Tile))
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, ",")
}

// tileTrier is a tuning whose timed choice also tries tiles: fast's planes
// per block, the temporal steps' time steps a pass. 0 is the step's
// default.
type tileTrier interface {
	triedTiles() []int
}

// Candidates returns the settings the timed choice of a step tries: the
// registered default first, then every combination of the values its
// parameter table marks as tried (Param.Tried) and of its tried tiles that
// the step accepts, each resolved configuration once. A step without a
// tuning, or whose table tries nothing, has the default alone.
func Candidates(p lab.Plan) ([]Setting, error) {
	if !p.Resolved() || p.Kernel != nil {
		return nil, fmt.Errorf("gpu: candidates of %s: not a resolved plan of a step's own kernel (lab.Resolve)", p.Name)
	}
	out := []Setting{{}}
	seen := map[string]bool{}
	key := func(s Setting) (string, bool) {
		q, err := p.Configure(lab.Config{Tile: s.Tile})
		if err != nil {
			return "", false
		}
		c, err := resolvedConfig(q.Step, q.Config, s.Defines)
		if err != nil {
			return "", false
		}
		open := ""
		if o, _ := c.chunks(); o {
			open = "open"
		}
		return fmt.Sprint(c.tile, c.defines, open), true
	}
	k, ok := key(Setting{})
	if !ok {
		return nil, fmt.Errorf("gpu: candidates of %s: its default does not resolve", p.Step.Name)
	}
	seen[k] = true
	t, tunes := tunings[p.Step.Name]
	if !tunes {
		return out, nil
	}
	tiles := []int{0}
	if tt, ok := t.(tileTrier); ok {
		tiles = tt.triedTiles()
	}
	combos := [][]Define{nil}
	for _, prm := range t.params() {
		if len(prm.Tried) == 0 {
			continue
		}
		var next [][]Define
		for _, c := range combos {
			for _, v := range prm.Tried {
				next = append(next, append(slices.Clone(c), Define{prm.Name, strconv.Itoa(v)}))
			}
		}
		combos = next
	}
	for _, tile := range tiles {
		for _, ds := range combos {
			s := Setting{Tile: tile, Defines: ds}
			k, ok := key(s)
			if !ok || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// SizeClass is the size class of a grid whose largest side is n, which a
// cached choice is kept for: the power of two nearest n (in ratio), so that
// 500 and 512 share a choice and 768 does not share 512's.
func SizeClass(n int) int {
	if n < 2 {
		return 1
	}
	return 1 << int(math.Round(math.Log2(float64(n))))
}

// ChoiceKey is what a cached choice holds for: the device's name, the
// step, the size class of the grid (SizeClass), the time steps of a run (1
// for a sweep) and the SHA-256 of the source texts of every candidate, so
// that a changed kernel is timed again.
type ChoiceKey struct {
	Device string `json:"device"`
	Step   string `json:"step"`
	Class  int    `json:"size_class"`
	Steps  int    `json:"steps"`
	Source string `json:"source_sha256"`
}

// file is the cache file of the key, named by a hash of the key.
func (k ChoiceKey) file() string {
	b, _ := json.Marshal(k)
	h := sha256.Sum256(b)
	return k.Step + "-" + hex.EncodeToString(h[:8]) + ".json"
}

// Tried is one candidate's outcome in a timed choice.
type Tried struct {
	Setting string  `json:"setting"`
	Ms      float64 `json:"median_ms,omitempty"` // median of the timed runs
	Err     string  `json:"error,omitempty"`     // why it was not kept: its launch or its check failed
}

// Choice is the setting chosen for a step on a device at a size class.
type Choice struct {
	Key     ChoiceKey `json:"key"`
	N       int       `json:"n"` // the side it was timed at
	Setting Setting   `json:"setting"`
	Ms      float64   `json:"median_ms"`
	Tried   []Tried   `json:"tried"`
	// Cached is true when the choice was read from the cache, not timed
	// now; never written.
	Cached bool `json:"-"`
}

// TuneMode says whether a run times its choice, reads it from the cache,
// or runs the registered defaults.
type TuneMode int

// The modes of the timed choice.
const (
	TuneCache TuneMode = iota // a cached choice if there is one, else time and cache it
	TuneOff                   // the registered defaults: nothing timed or read (reproducible tests)
	TuneFresh                 // time again and overwrite the cache
)

// EnvTune names the environment variable that sets the default TuneMode:
// "off", "cache" or "fresh" (ParseTuneMode).
const EnvTune = "STENCIL_TUNE"

// EnvTuneDir names the environment variable that moves the cache of
// choices; by default it is stencillab under os.UserCacheDir.
const EnvTuneDir = "STENCIL_TUNE_DIR"

// tuneModes are the modes by name.
var tuneModes = map[string]TuneMode{"cache": TuneCache, "off": TuneOff, "fresh": TuneFresh}

// ParseTuneMode parses "cache", "off" or "fresh".
func ParseTuneMode(s string) (TuneMode, error) {
	m, ok := tuneModes[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		return TuneOff, fmt.Errorf("gpu: timed choice %q: want cache, off or fresh", s)
	}
	return m, nil
}

// String returns the mode's name.
func (m TuneMode) String() string {
	for n, v := range tuneModes {
		if v == m {
			return n
		}
	}
	return "mode " + strconv.Itoa(int(m))
}

// DefaultTuneMode returns the mode that EnvTune sets, TuneCache when it is
// unset or empty.
func DefaultTuneMode() (TuneMode, error) {
	v := os.Getenv(EnvTune)
	if v == "" {
		return TuneCache, nil
	}
	m, err := ParseTuneMode(v)
	if err != nil {
		return TuneOff, fmt.Errorf("%s: %w", EnvTune, err)
	}
	return m, nil
}

// ChoiceDir returns the directory of cached choices: EnvTuneDir, or
// stencillab under os.UserCacheDir.
func ChoiceDir() (string, error) {
	if d := os.Getenv(EnvTuneDir); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("gpu: the cache of timed choices: %w (set %s)", err, EnvTuneDir)
	}
	return filepath.Join(base, "stencillab"), nil
}

// maxChoiceBytes bounds a cache file read back.
const maxChoiceBytes = 1 << 20

// LoadChoice reads the cached choice of key from dir; false when there is
// none, or the file is unreadable, too large, or holds another key (it is
// then timed again and overwritten).
func LoadChoice(dir string, key ChoiceKey) (Choice, bool) {
	f, err := os.Open(filepath.Join(dir, key.file()))
	if err != nil {
		return Choice{}, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxChoiceBytes+1))
	if err != nil || len(b) > maxChoiceBytes {
		return Choice{}, false
	}
	var c Choice
	if json.Unmarshal(b, &c) != nil || c.Key != key {
		return Choice{}, false
	}
	for _, d := range c.Setting.Defines {
		if !validIdent(d.Name) {
			return Choice{}, false
		}
	}
	c.Cached = true
	return c, true
}

// SaveChoice writes c to dir, creating it, through a temporary file
// renamed into place so that a reader never sees half a file.
func SaveChoice(dir string, c Choice) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("gpu: cache a timed choice: %w", err)
	}
	b, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		return fmt.Errorf("gpu: cache a timed choice: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".choice-*")
	if err != nil {
		return fmt.Errorf("gpu: cache a timed choice: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("gpu: cache a timed choice: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, c.Key.file())); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("gpu: cache a timed choice: %w", err)
	}
	return nil
}

// pick times every candidate with try, which returns its median time or
// why it failed (its launch, or its output against the reference), and
// returns the index of the fastest that passed, the first among equals,
// and every outcome. None passing is an error naming the first failure.
func pick(cands []Setting, try func(Setting) (float64, error)) (int, []Tried, error) {
	best, tried := -1, make([]Tried, len(cands))
	for i, s := range cands {
		tried[i].Setting = s.String()
		ms, err := try(s)
		if err != nil {
			tried[i].Err = err.Error()
			continue
		}
		if !(ms > 0) || math.IsInf(ms, 0) {
			tried[i].Err = fmt.Sprintf("time %g ms is not a positive number", ms)
			continue
		}
		tried[i].Ms = ms
		if best < 0 || ms < tried[best].Ms {
			best = i
		}
	}
	if best < 0 {
		first := ""
		if len(tried) > 0 {
			first = ": " + tried[0].Setting + ": " + tried[0].Err
		}
		return -1, tried, fmt.Errorf("gpu: timed choice: none of %d candidates ran and matched the reference%s", len(cands), first)
	}
	return best, tried, nil
}
