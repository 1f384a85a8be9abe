package cudacheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

// standIn is a source for the CPU stand-in with the mode's kernel, and
// the challenge's launch.
func standIn(mode string) []byte {
	src := "// a kernel\n#define BLOCK_X 8\n#define BLOCK_Y 8\n#define BLOCK_Z 1\n#define TILE_X 8\n#define TILE_Y 8\n#define TILE_Z 8\n"
	if mode != "" {
		src += "// stand-in: " + mode + "\n"
	}
	return []byte(src)
}

// speedOrMethod reports the checks a kernel without the technique loses.
func speedOrMethod(id string) bool {
	return id == "method" || id == "performance" || strings.HasPrefix(id, "speed-")
}

// A correct kernel without the exercise's technique earns at most half
// the points, the sanitizer's two and the hidden checks included: the
// method check and the speed points that depend on it outweigh the
// correctness checks.
func TestPlainKernelEarnsAtMostHalf(t *testing.T) {
	for _, s := range Specs() {
		if s.method() == nil {
			assert.Zero(t, MethodPoints(s), s.ID)
			continue
		}
		ex := s.Exercise(nil, true)
		correct := 0
		for _, c := range ex.Checks {
			if !speedOrMethod(c.ID) {
				correct += c.Points
			}
		}
		hidden := 0
		if !HiddenIncluded() {
			hidden = 1 // hidden.go's check of this exercise, one point
		}
		assert.LessOrEqual(t, 2*(correct+hidden), ex.MaxPoints()+hidden, "%s: %d correctness points of %d", s.ID, correct+hidden, ex.MaxPoints()+hidden)
		assert.Positive(t, MethodPoints(s), s.ID)
	}
}

// The reference's technique, as the stand-in answers it, passes the
// method check with full marks; each dodge (the plain kernel, shared
// memory written and never read, or read into the output for show, a
// kernel that reads the clock, the given kernel of 24 replaced) loses the
// method check and the speed points, keeps the correctness checks, and is
// told which technique is missing and its own numbers.
func TestMethodDodgesLoseTheMethodAndTheSpeed(t *testing.T) {
	for _, s := range Specs() {
		m := s.method()
		if m == nil {
			continue
		}
		honest := Grade(fakeCfg(t, FakeHonest), s, standIn(""))
		require.Equal(t, grading.Graded, honest.Status, "%s: %s", s.ID, honest.Message)
		assert.Equal(t, honest.MaxPoints, honest.Points, "%s: %+v", s.ID, honest.Checks)
		assert.Contains(t, honest.Message, "Method check: Measured by the grader", s.ID)
		modes := map[string]string{
			FakePlain: "your kernel makes 13.0 global loads per output point",
			FakeDecoy: "your kernel makes 13.0 global loads per output point",
			FakeShow:  "your kernel makes 13.0 global loads per output point",
			FakeClock: "special register %clock64",
		}
		if s.Kind == FindBug {
			modes[FakeRewritten] = "the given kernel's shared arrays inPrev2_s, inPrev_s, inCurr_s, inNext_s, inNext2_s"
		}
		for mode, says := range modes {
			r := Grade(fakeCfg(t, FakeHonest), s, standIn(mode))
			require.Equal(t, grading.Graded, r.Status, "%s %s: %s", s.ID, mode, r.Message)
			correct := 0
			for _, c := range r.Checks {
				if speedOrMethod(c.ID) {
					assert.False(t, c.Passed, "%s %s: %s passed", s.ID, mode, c.ID)
					continue
				}
				assert.True(t, c.Passed, "%s %s: %s: %s", s.ID, mode, c.ID, c.Message)
				correct += c.Points
			}
			assert.Equal(t, correct, r.Points, "%s %s: the correctness part only", s.ID, mode)
			assert.LessOrEqual(t, 2*r.Points, r.MaxPoints, "%s %s", s.ID, mode)
			msg := checkByID(r, "method").Message
			assert.Contains(t, msg, m.Technique, "%s %s: the message names the technique", s.ID, mode)
			assert.Contains(t, msg, says, "%s %s", s.ID, mode)
			if s.Kind == Challenge || mode == FakeClock || mode == FakeRewritten {
				continue
			}
			if mode != FakeShow {
				assert.Contains(t, msg, "no value read from shared memory reaches the output", "%s %s", s.ID, mode)
			}
			perf := checkByID(r, "performance").Message
			assert.Contains(t, perf, "passed its method check", "%s %s", s.ID, mode)
		}
	}
}

// The challenge's method asks only for reuse: its reference, which keeps
// the z neighbours in registers and reads no shared memory, passes; the
// plain kernel's thirteen loads per output do not.
func TestChallengeMethodIsReuse(t *testing.T) {
	s, _ := Lookup("25_cuda_challenge")
	m := s.method()
	k := fakeKernel{entry: "challenge", loop: true}
	judge := func(loads float64) []string {
		return m.judge(s, &Inspection{Dims: [3]int{50, 50, 50}, GlobalLoads: loads, PTX: k.ptx()})
	}
	assert.Empty(t, judge(9))
	miss := judge(13)
	require.Len(t, miss, 1)
	assert.Contains(t, miss[0], "your kernel makes 13.0 global loads per output point (it loads each input point about 13.0 times from global memory); the plain kernel makes 13, and a kernel that reuses its inputs makes at most 10")
}

// The message of a kernel that loads too much gives the student's number
// and the technique's on the same grid, the bound between them.
func TestMethodMessageGivesBothNumbers(t *testing.T) {
	s, _ := Lookup("22_cuda_coarsened")
	k := coarsenedPTX()
	d := [3]int{80, 81, 82}
	tech := techniqueLoads(s.Tile, d)
	miss := s.method().judge(s, &Inspection{Dims: d, GlobalLoads: 7, SharedLoads: 13, Barriers: 56, Technique: tech, StaticShared: 5 * 32 * 32 * 4, PTX: k.ptx()})
	require.Len(t, miss, 1)
	assert.Contains(t, miss[0], "your kernel makes 7.0 global loads per output point")
	assert.Contains(t, miss[0], fmt.Sprintf("the kernel of this exercise makes about %.1f on this grid (the check allows %.1f), the plain kernel 13", tech, 1.15*tech))
	ok := s.method().judge(s, &Inspection{Dims: d, GlobalLoads: tech, SharedLoads: 13, Barriers: 56, Technique: tech, StaticShared: 5 * 32 * 32 * 4, PTX: k.ptx()})
	assert.Empty(t, ok)
	few := s.method().judge(s, &Inspection{Dims: d, GlobalLoads: tech, SharedLoads: 13, Barriers: 56, Technique: tech, StaticShared: 4 * 32 * 32 * 4, PTX: k.ptx()})
	require.Len(t, few, 1)
	assert.Contains(t, few[0], "it declares 16384 bytes of shared memory (4.00 planes of IN_TILE_DIM² floats, IN_TILE_DIM = 32), and the technique needs 5")
}

// Each exercise's instructions say what its method check looks at and
// give the speed threshold and the share it comes from, as the record
// has them (the numbers are derived there; the text must follow).
func TestInstructionsFollowTheRecordAndTheMethod(t *testing.T) {
	for _, s := range Specs() {
		b, err := os.ReadFile(filepath.Join("..", s.ID, "doc.go"))
		require.NoError(t, err)
		doc := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "//", " ")), " ")
		if s.Reference != "" {
			assert.Contains(t, doc, fmt.Sprintf("asks for %.0f %% of the float4 copy", 100*s.Threshold), s.ID)
			assert.Contains(t, doc, fmt.Sprintf("reached %.1f %% on an %s", 100*s.Recorded, Record().Card), s.ID)
		}
		if s.method() != nil {
			assert.Contains(t, doc, fmt.Sprintf("# The method check (%d points)", MethodPoints(s)), s.ID)
		}
	}
}

// The README's table of the CUDA exercises gives each one's points as the
// checks have them, hidden ones apart.
func TestReadmeTableHasThePoints(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	for _, s := range Specs() {
		var row string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "| `"+s.ID+"` |") {
				row = l
			}
		}
		require.NotEmpty(t, row, s.ID)
		hidden := 2
		if s.method() != nil {
			hidden = 1
		}
		shown := 0
		for _, c := range s.Exercise(nil, false).Checks {
			if !c.Hidden {
				shown += c.Points
			}
		}
		assert.Contains(t, row, fmt.Sprintf("| %d (+%d", shown, hidden), s.ID)
	}
}

// A plane loop the compiler unrolled leaves no loop in the PTX: a barrier
// per plane, counted, stands for it; without either the march is missing.
func TestUnrolledMarchCountsByItsBarriers(t *testing.T) {
	s, _ := Lookup("22_cuda_coarsened")
	k := coarsenedPTX()
	k.loop = false
	d := [3]int{80, 81, 82}
	tech := techniqueLoads(s.Tile, d)
	ins := &Inspection{Dims: d, GlobalLoads: tech, SharedLoads: 13, Barriers: 2 * float64(s.Tile-4), Technique: tech, StaticShared: 5 * 32 * 32 * 4, PTX: k.ptx()}
	assert.Empty(t, s.method().judge(s, ins))
	ins.Barriers = 1
	miss := s.method().judge(s, ins)
	require.Len(t, miss, 1)
	assert.Contains(t, miss[0], "its threads pass 1.0 barriers each where a block marching through its 28 planes passes one per plane at least")
}
