package predict

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sediment"
	"stencillab.dev/lab/sim"
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/model"
	"stencillab.dev/notebooks/nbrun/run"
)

// QuestionTag is the tag of a Check-yourself question's markdown cell in a
// notebook: the cells after it, up to its check, are the student's
// prediction (the students' copy clears their outputs).
const QuestionTag = "question"

// CheckCall finds the check of a question in a code cell's source:
// nbrun.Check(NB, ID, VAR) or nbrun.Reveal(NB, ID). Its submatches are the
// function (Check or Reveal), the notebook, the question's id and, when
// the third argument is a plain name, the prediction's variable.
var CheckCall = regexp.MustCompile(`nbrun\.(Check|Reveal)\(\s*"([^"]+)"\s*,\s*"([^"]+)"(?:\s*,\s*([A-Za-z_][A-Za-z0-9_]*))?`)

// Question is one Check-yourself question of a notebook.
type Question struct {
	Notebook string  // the notebook's number, "01" … "11", "07b"
	ID       string  // the question's id, the name its prediction is graded under
	Name     string  // what is predicted ("largest T under 48 KiB")
	Tol      float64 // the absolute tolerance of the check
	RelTol   float64 // a tolerance as a share of the answer; the larger of the two applies
	// Forms are renderings of the answer other than its decimal digits
	// that must not be on the page before the check either ("13/28", "2⁴").
	Forms []string
	// Solve computes the answer as the lab does. A question with no
	// number to predict has a nil Solve and only a Working.
	Solve func() (Answer, error)
	// Working is the answer of a question with no number to predict.
	Working string
}

// Answer is what a question's Solve computes: the value, the known slips,
// and the answer with its working, shown after the check.
type Answer struct {
	Want     float64
	Mistakes []Mistake
	Working  string
}

// Graded reports whether the question has a number that a check grades.
func (q Question) Graded() bool { return q.Solve != nil }

// Tolerance is the check's tolerance for the answer want.
func (q Question) Tolerance(want float64) float64 {
	return math.Max(q.Tol, q.RelTol*math.Abs(want))
}

// Questions returns every question of the course, in the order of the
// notebooks and of the questions in each.
func Questions() []Question {
	out := append([]Question(nil), questions...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Notebook < out[j].Notebook })
	return out
}

// LookupQuestion returns the question id of the notebook nb.
func LookupQuestion(nb, id string) (Question, error) {
	for _, q := range questions {
		if q.Notebook == nb && q.ID == id {
			return q, nil
		}
	}
	return Question{}, fmt.Errorf("nbrun: notebook %s has no question %q", nb, id)
}

// Check grades the prediction got of question id of notebook nb, as
// Predict does, and once a prediction has been made (got is not Unset)
// prints the answer and its working under the score.
func Check[N Number](nb, id string, got N) grading.ExerciseResult {
	q, err := LookupQuestion(nb, id)
	if err != nil {
		return Predict(id, id, got, math.NaN(), 0)
	}
	if !q.Graded() {
		return Predict(id, q.Name, got, math.NaN(), 0)
	}
	a, err := q.Solve()
	if err != nil {
		fmt.Printf("the lab could not compute the answer: %v\n", err)
		return Predict(id, q.Name, got, math.NaN(), 0)
	}
	res := Predict(id, q.Name, got, a.Want, q.Tolerance(a.Want), a.Mistakes...)
	if !math.IsNaN(float64(got)) {
		fmt.Printf("\n%s\n", wrap("Answer. "+a.Working, answerWidth))
	}
	return res
}

// Reveal prints the answer of question id of notebook nb: the check of a
// question with no number to predict, run once you have your answer.
func Reveal(nb, id string) {
	q, err := LookupQuestion(nb, id)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	if q.Graded() {
		a, err := q.Solve()
		if err != nil {
			fmt.Fprintf(os.Stderr, "nbrun: the lab could not compute the answer: %v\n", err)
			return
		}
		fmt.Println(wrap("Answer. "+a.Working, answerWidth))
		return
	}
	fmt.Println(wrap("Answer. "+q.Working, answerWidth))
}

// answerWidth is the longest line of a printed answer: Jupyter breaks
// longer lines of an output anywhere, mid-word included.
const answerWidth = 100

// wrap breaks text into lines of at most width characters at its spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range words(text) {
		n := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case line+1+n > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += n
	}
	return b.String()
}

// words splits text at its spaces, except inside a number whose digits
// are grouped by threes ("262 144", "1 048 576"): broken across two lines
// it would read as two numbers.
func words(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		if n := len(out); n > 0 && endsInDigitGroup(out[n-1]) && startsWithDigitGroup(w) {
			out[n-1] += " " + w
			continue
		}
		out = append(out, w)
	}
	return out
}

// endsInDigitGroup reports whether w ends in one to three digits that
// follow no other digit or decimal point: the head of a grouped number.
func endsInDigitGroup(w string) bool {
	n := 0
	for n < len(w) && n < 4 && isDigit(w[len(w)-1-n]) {
		n++
	}
	return n >= 1 && n <= 3 && (n == len(w) || w[len(w)-1-n] != '.' && !isDigit(w[len(w)-1-n]))
}

// startsWithDigitGroup reports whether w is three digits, alone or before
// a punctuation mark ("144", "432.", "576,"): "128-wide" is a name.
func startsWithDigitGroup(w string) bool {
	return len(w) >= 3 && isDigit(w[0]) && isDigit(w[1]) && isDigit(w[2]) && (len(w) == 3 || strings.IndexByte(",.;:)", w[3]) >= 0)
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// group writes a whole number with a space between groups of three
// digits, as the notebooks' prose does: 262 144.
func group(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	if neg {
		return "−" + b.String()
	}
	return b.String()
}

// maxDerivativeError applies s to sine sampled with spacing π/n on
// [−π, 2π] and returns the largest error against cos x over the points
// of [0, π], as notebook 1's convergence cell measures it.
func maxDerivativeError(s lab.Stencil1, n int) (float64, error) {
	g, err := lab.Discretize(math.Sin, -math.Pi, 2*math.Pi, 3*n+1)
	if err != nil {
		return 0, err
	}
	d, err := lab.NewGrid1[float64](g.N, g.X0, g.H)
	if err != nil {
		return 0, err
	}
	if err := lab.Derivative(d, g, s); err != nil {
		return 0, err
	}
	worst := 0.0
	for k := n; k <= 2*n; k++ {
		worst = max(worst, math.Abs(d.Data[k]-math.Cos(g.X(k))))
	}
	return worst, nil
}

// launch returns the blocks and threads of a simulated kernel's launch.
func launch(k sim.Kernel, err error) (blocks, threads float64, _ error) {
	if err != nil {
		return 0, 0, err
	}
	return float64(k.Grid.Size()), float64(k.Grid.Size() * k.Block.Size()), nil
}

// h200Kernels are the chapter's four kernels as notebook 7's first
// question numbers them.
var h200Kernels = map[string]int{"basic": 1, "tiled": 2, "coarsened": 3, "register_tiled": 4}

// h200Ranking returns the four kernels of the committed H200 bench at
// N = 512, fastest first, as a number (1 basic … 4 register tiled), and
// the rows it ranked.
func h200Ranking() (float64, []fig.BenchResult, error) {
	b, err := data.MeasuredBench()
	if err != nil {
		return 0, nil, err
	}
	var rs []fig.BenchResult
	for _, r := range b.Results {
		if r.N == 512 && h200Kernels[r.Kernel] > 0 && (r.Label == "" || r.Label == r.Kernel) {
			rs = append(rs, r)
		}
	}
	if len(rs) != len(h200Kernels) {
		return 0, nil, fmt.Errorf("nbrun: %s has %d of the four kernels at N = 512", data.BenchFile, len(rs))
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].PctCopy > rs[j].PctCopy })
	rank := 0
	for _, r := range rs {
		rank = 10*rank + h200Kernels[r.Kernel]
	}
	return float64(rank), rs, nil
}

// copyAt512 is the copy bandwidth the committed H200 bench records with
// its sweeps at N = 512.
func copyAt512() (float64, error) {
	b, err := data.MeasuredBench()
	if err != nil {
		return 0, err
	}
	for _, r := range b.Results {
		if r.N == 512 && r.CopyGBps > 0 {
			return r.CopyGBps, nil
		}
	}
	return 0, fmt.Errorf("nbrun: %s records no copy bandwidth at N = 512", data.BenchFile)
}

var questions = []Question{
	{Notebook: "01", ID: "q1", Name: "five-point error ratio when h halves", Tol: 1, Forms: []string{"2⁴"},
		Solve: func() (Answer, error) {
			s, err := lab.CentralDifference(1, 2)
			if err != nil {
				return Answer{}, err
			}
			e32, err := maxDerivativeError(s, 32)
			if err != nil {
				return Answer{}, err
			}
			e64, err := maxDerivativeError(s, 64)
			if err != nil {
				return Answer{}, err
			}
			return Answer{Want: e32 / e64,
				Mistakes: []Mistake{
					{4, "That is the three-point stencil's factor. Up to which degree is the five-point stencil exact?"},
					{2, "Halving h halves the error only for a method of order 1."},
					{32, "The five-point stencil's error is C·hᵖ: what is p?"},
				},
				Working: fmt.Sprintf("About 2⁴ = 16; the convergence cell measures %.2f. The five-point stencil is exact up to degree 4, "+
					"so its error is C·h⁴ plus higher powers, and halving h divides it by 2⁴; the measured ratio is close to 16 because "+
					"at these spacings the h⁴ term dominates.", e32/e64)}, nil
		}},
	{Notebook: "01", ID: "q2", Working: "No. Near 10⁻¹³ the seven-point stencil's error stops falling and then grows again. The weights sum " +
		"values that are nearly equal and divide by h, so the rounding error of double precision (about 10⁻¹⁶ per value) is " +
		"amplified as 1/h while the truncation error shrinks as h⁶; past the crossing the rounding wins."},

	{Notebook: "02", ID: "q1", Name: "boundary points of a 10³ grid", Forms: []string{"1000 − 512"},
		Solve: func() (Answer, error) {
			g := lab.Grid3[float32]{NZ: 10, NY: 10, NX: 10}
			want := float64(10*10*10 - g.Interior())
			return Answer{Want: want,
				Mistakes: []Mistake{
					{600, "Six faces of 100 points count the edges and corners more than once."},
					{1000 - 9*9*9, "(N − 1)³? The interior loses a point at both ends of each axis."},
				},
				Working: fmt.Sprintf("N³ − (N − 2)³ = 1000 − %d = %s: almost half of the grid. The share falls as N grows (the "+
					"boundary table below), but a GPU block works on a tile, and on a tile the same count decides how much is halo.",
					g.Interior(), group(want))}, nil
		}},
	{Notebook: "02", ID: "q2", Name: "bytes to the z neighbour at N = 256", Forms: []string{"256 KiB"},
		Solve: func() (Answer, error) {
			g := lab.Grid3[float32]{NZ: 256, NY: 256, NX: 256}
			want := float64(4 * (g.Index(2, 1, 1) - g.Index(1, 1, 1)))
			return Answer{Want: want,
				Mistakes: []Mistake{
					{1024, "That is the y neighbour, one row of 256 floats away."},
					{65536, "Elements, not bytes: a float32 is 4 bytes."},
				},
				Working: fmt.Sprintf("One plane, N·N elements of 4 bytes: 256·256·4 = %s bytes, 256 KiB. A y neighbour is one "+
					"row away (1 KiB), an x neighbour 4 bytes.", group(want))}, nil
		}},
	{Notebook: "02", ID: "q3", Working: "To 1/2. Of the four problems with one hot edge each, two are now switched on, and each " +
		"contributes 1/4 at the centre."},

	{Notebook: "03", ID: "q1", Name: "largest N with 32-bit indices",
		Solve: func() (Answer, error) {
			n := uint64(1)
			for (n+1)*(n+1)*(n+1)-1 <= math.MaxUint32 {
				n++
			}
			return Answer{Want: float64(n),
				Mistakes: []Mistake{
					{1290, "That is the limit of a signed 32-bit int; the figure's index is unsigned."},
					{float64(n + 1), "Cube your N and compare it with 2³² = 4 294 967 296."},
					{2048, "2048³ = 2³³: twice too big."},
				},
				Working: fmt.Sprintf("N = %d: %d³ = %s is below 2³² = 4 294 967 296 and %d³ = %s is above. At N = 1700 the "+
					"index first wraps around modulo 2³² inside plane i = 1486: 1486·1700² = 4 294 540 000 still fits, but the "+
					"points of that plane with j·N + k ≥ 427 296 pass 2³² − 1, and so does every point of the planes above. Their "+
					"threads read and write points near the bottom of the grid: no error, just wrong outputs in the top planes and "+
					"overwritten ones below. The lab's kernels compute indices in 64 bits for that reason.",
					n, n, group(float64(n*n*n)), n+1, group(float64((n+1)*(n+1)*(n+1))))}, nil
		}},
	{Notebook: "03", ID: "q2a", Name: "blocks of basic on a 120³ grid", Forms: []string{"15³"},
		Solve: func() (Answer, error) {
			blocks, threads, err := launch(lab.BasicKernel(lab.StencilArgs{NZ: 120, NY: 120, NX: 120, Tile: 8}))
			return Answer{Want: blocks,
				Mistakes: []Mistake{
					{15, "That is the blocks along one axis; the grid of blocks is 3D."},
					{15 * 15, "The grid of blocks is 3D: z is cut into blocks too."},
				},
				Working: fmt.Sprintf("120/8 = 15 blocks along each axis, 15³ = %s blocks of 512 threads: %s threads, one per "+
					"grid point. The 120³ − 118³ = 84 968 boundary threads idle.", group(blocks), group(threads))}, err
		}},
	{Notebook: "03", ID: "q2b", Name: "threads of basic on a 120³ grid",
		Solve: func() (Answer, error) {
			blocks, threads, err := launch(lab.BasicKernel(lab.StencilArgs{NZ: 120, NY: 120, NX: 120, Tile: 8}))
			return Answer{Want: threads,
				Mistakes: []Mistake{
					{118 * 118 * 118, "Only interior points compute, but every grid point gets a thread; the boundary ones idle."},
					{512, "That is one block; how many blocks are there?"},
				},
				Working: fmt.Sprintf("%s blocks of 512 threads: %s threads, one per grid point, 120³.", group(blocks), group(threads))}, err
		}},
	{Notebook: "03", ID: "q3", Name: "basic's counted OP/B at N = 24", Tol: 0.005, Forms: []string{"13/28"},
		Solve: func() (Answer, error) {
			s, err := run.Simulate("basic", 24, 8)
			if err != nil {
				return Answer{}, err
			}
			want := s.Stats.OpPerByte()
			return Answer{Want: want,
				Mistakes: []Mistake{
					{13.0 / 32, "Did you count the store? The simulator's OP/B, like the chapter's, counts the bytes loaded."},
					{13.0 / 7, "Per byte, not per load: a float32 load brings 4 bytes."},
				},
				Working: fmt.Sprintf("13/28 ≈ %.3f, the same as on 48³. Only interior points load and compute, and each loads 7 "+
					"values for 13 operations, whatever the grid and the block; the idle boundary threads load nothing.", want)}, nil
		}},

	{Notebook: "04", ID: "q1a", Name: "blocks of tiled (T = 8) on a 120³ grid", Forms: []string{"20³"},
		Solve: func() (Answer, error) {
			blocks, threads, err := launch(lab.TiledKernel(lab.StencilArgs{NZ: 120, NY: 120, NX: 120, Tile: 8}))
			return Answer{Want: blocks,
				Mistakes: []Mistake{
					{15 * 15 * 15, "That tiles the grid with 8-point blocks; a tiled block computes only its 6³ output tile."},
					{19 * 19 * 19, "Is 118/6 a whole number? A partial output tile still needs a block."},
				},
				Working: tiledLaunchWorking(blocks, threads)}, err
		}},
	{Notebook: "04", ID: "q1b", Name: "threads of tiled (T = 8) on a 120³ grid",
		Solve: func() (Answer, error) {
			blocks, threads, err := launch(lab.TiledKernel(lab.StencilArgs{NZ: 120, NY: 120, NX: 120, Tile: 8}))
			return Answer{Want: threads,
				Mistakes: []Mistake{
					{blocks * 216, "A block has a thread for every point of its input tile, T³, though only (T − 2)³ compute."},
					{120 * 120 * 120, "One thread per grid point is the basic kernel; the tiled blocks overlap by their halos."},
				},
				Working: tiledLaunchWorking(blocks, threads)}, err
		}},
	{Notebook: "04", ID: "q2", Name: "bytes per output at T = 6", Tol: 0.01, Forms: []string{"864 / 64", "864/64"},
		Solve: func() (Answer, error) {
			c, err := lab.Cost("tiled", 6)
			if err != nil {
				return Answer{}, err
			}
			want := float64(4*c.Loads) / float64(c.Outputs)
			return Answer{Want: want,
				Mistakes: []Mistake{
					{4, "T³ loads for T³ points? Only (T − 2)³ of the block's threads compute an output."},
					{want + 4, "Did you count the store? The question asks for the bytes loaded."},
					{want / 4, "That is loads per output; in bytes, a load is 4."},
				},
				Working: fmt.Sprintf("4·6³ / 4³ = 864 / 64 = %g bytes: the block loads 216 floats for 64 outputs. The basic "+
					"kernel loads 28, the ideal is 4. The simulator's count over a whole 48³ launch is higher still, because the "+
					"blocks at the faces compute fewer outputs for their loads.", want)}, nil
		}},
	{Notebook: "04", ID: "q3", Name: "largest T under 48 KiB",
		Solve: func() (Answer, error) {
			t, _, err := lab.MaxTile("tiled", sim.Limits{MaxThreads: 1 << 30, MaxSharedBytes: 48 * 1024})
			if err != nil {
				return Answer{}, err
			}
			want := float64(t)
			return Answer{Want: want,
				Mistakes: []Mistake{
					{10, "That is the thread limit, 10³ ≤ 1024; this question lifts it."},
					{want + 1, "How many bytes is a tile of your T, 4·T³? Compare them with 48 KiB = 49 152."},
					{want - 1, "Check T + 1: do 4·(T + 1)³ bytes still fit in 49 152?"},
				},
				Working: fmt.Sprintf("T = %d: 4·%d³ = %s bytes fit in 49 152, 4·%d³ = %s do not. The threads, 10³ at most, "+
					"bind long before.", t, t, group(4*want*want*want), t+1, group(4*(want+1)*(want+1)*(want+1)))}, nil
		}},

	{Notebook: "05", ID: "q1a", Name: "blocks of coarsened (T = 32) on a 120³ grid", Forms: []string{"4³"},
		Solve: func() (Answer, error) {
			blocks, threads, err := launch(lab.CoarsenedKernel(lab.StencilArgs{NZ: 120, NY: 120, NX: 120, Tile: 32}))
			return Answer{Want: blocks,
				Mistakes: []Mistake{
					{16, "The grid of blocks is 3D: z is cut into chunks of OUT_TILE_DIM planes, one block each."},
					{27, "Is 118/30 a whole number? A partial tile still needs a block."},
				},
				Working: coarsenedLaunchWorking(blocks, threads)}, err
		}},
	{Notebook: "05", ID: "q1b", Name: "threads of coarsened (T = 32) on a 120³ grid",
		Solve: func() (Answer, error) {
			blocks, threads, err := launch(lab.CoarsenedKernel(lab.StencilArgs{NZ: 120, NY: 120, NX: 120, Tile: 32}))
			return Answer{Want: threads,
				Mistakes: []Mistake{
					{blocks * 900, "A block has a thread for every point of its input plane, T², though only (T − 2)² compute."},
					{blocks * 32 * 32 * 32, "A coarsened block has one plane of threads, not a cube: each thread marches through z."},
				},
				Working: coarsenedLaunchWorking(blocks, threads)}, err
		}},
	{Notebook: "05", ID: "q2", Name: "outputs per block at T = 32", Forms: []string{"30³"},
		Solve: func() (Answer, error) {
			c, err := lab.Cost("coarsened", 32)
			if err != nil {
				return Answer{}, err
			}
			return Answer{Want: float64(c.Outputs),
				Mistakes: []Mistake{
					{30 * 30 * 32, "(T−2)²·T? The block computes T − 2 planes, not T."},
					{32 * 32 * 32, "T³ counts what the block loads; how many points does it compute?"},
					{900, "That is one plane; the block marches through OUT_TILE_DIM planes."},
				},
				Working: fmt.Sprintf("(T − 2)³ = 30³ = %s. The block covers OUT_TILE_DIM = T − 2 output planes of (T − 2)² "+
					"points; the notes' (T − 2)²×T = 28 800 counts two planes too many (erratum: the loaded planes, not the "+
					"computed ones).", group(float64(c.Outputs)))}, nil
		}},
	{Notebook: "05", ID: "q3", Name: "shared bytes of a 34×34 coarsened block", Forms: []string{"3·34²·4"},
		Solve: func() (Answer, error) {
			c, err := lab.Cost("coarsened", 34)
			if err != nil {
				return Answer{}, err
			}
			return Answer{Want: float64(c.SharedBytes),
				Mistakes: []Mistake{
					{34 * 34 * 4, "One plane? The coarsened kernel keeps three in shared memory."},
					{3 * 32 * 32 * 4, "The notes' block is 34×34, not 32×32."},
					{13 * 1024, "13 KB is the notes' rounding; count the bytes."},
				},
				Working: fmt.Sprintf("3·34²·4 = %s bytes, the notes' \"13 KB\"; one plane, 34²·4 = 4 624 bytes, is their "+
					"\"4 KB\". Both belong to the 1156-thread block that no GPU runs, so the notes' timings time a launch that "+
					"failed, not a sweep (the table above).", group(float64(c.SharedBytes)))}, nil
		}},

	{Notebook: "06", ID: "q1a", Name: "blocks of register_tiled (T = 32) on a 120³ grid", Forms: []string{"4³"},
		Solve: func() (Answer, error) {
			blocks, _, err := launch(lab.RegisterTiledKernel(lab.StencilArgs{NZ: 120, NY: 120, NX: 120, Tile: 32}))
			return Answer{Want: blocks,
				Mistakes: []Mistake{
					{16, "The grid of blocks is 3D: z is cut into chunks of OUT_TILE_DIM planes, one block each."},
				},
				Working: fmt.Sprintf("The same launch as the coarsened kernel: 4 blocks along each axis, %s blocks of "+
					"1 024 threads.", group(blocks))}, err
		}},
	{Notebook: "06", ID: "q1b", Name: "shared bytes of all its blocks",
		Solve: func() (Answer, error) {
			blocks, _, err := launch(lab.RegisterTiledKernel(lab.StencilArgs{NZ: 120, NY: 120, NX: 120, Tile: 32}))
			if err != nil {
				return Answer{}, err
			}
			c, err := lab.Cost("register_tiled", 32)
			if err != nil {
				return Answer{}, err
			}
			want := blocks * float64(c.SharedBytes)
			return Answer{Want: want,
				Mistakes: []Mistake{
					{3 * want, "Three planes is the coarsened kernel; register tiling keeps one in shared memory."},
					{want / 4, "Floats, not bytes: a float is 4 bytes."},
				},
				Working: fmt.Sprintf("Each of the %s blocks keeps one 32×32 plane of floats in shared memory, %s bytes, so %s "+
					"bytes in all, a third of the coarsened kernel's %s.", group(blocks), group(float64(c.SharedBytes)),
					group(want), group(3*want))}, nil
		}},
	{Notebook: "06", ID: "q2", Working: "Only the c3/c4 swap would pass: with c3 = c4 swapping them changes nothing. The others " +
		"write wrong values, leave points unwritten, race or are refused whatever the coefficients. That is why every check in " +
		"the lab uses seven distinct coefficients."},
	{Notebook: "06", ID: "q3", Name: "shared bytes at T = 24", Forms: []string{"24²·4"},
		Solve: func() (Answer, error) {
			c, err := lab.Cost("register_tiled", 24)
			if err != nil {
				return Answer{}, err
			}
			want := float64(c.SharedBytes)
			return Answer{Want: want,
				Mistakes: []Mistake{
					{3 * want, "Three planes is the coarsened kernel; register tiling keeps one in shared memory."},
					{want / 4, "Floats, not bytes: a float is 4 bytes."},
				},
				Working: fmt.Sprintf("One plane: 24²·4 = %s bytes, against 3·24²·4 = %s for the coarsened kernel.",
					group(want), group(3*want))}, nil
		}},

	{Notebook: "07", ID: "q1", Name: "the four kernels on the H200, fastest first",
		Solve: func() (Answer, error) {
			rank, rs, err := h200Ranking()
			if err != nil {
				return Answer{}, err
			}
			countOrder := "That is the order of the chapter's count of loads. On Hopper the L1 and L2 caches serve most of " +
				"the basic kernel's re-reads: which kernels still pay for barriers and idle threads?"
			var shares []string
			for _, r := range rs {
				shares = append(shares, fmt.Sprintf("%s %.0f %%", r.Kernel, r.PctCopy))
			}
			return Answer{Want: rank,
				Mistakes: []Mistake{
					{4321, countOrder}, {3421, countOrder},
					{1234, "Is that the order of the notebooks? Rank by measured speed, fastest first."},
				},
				Working: fmt.Sprintf("%.0f, by share of the copy's bandwidth: %s. Tiling loses because the L1 and L2 caches "+
					"already give the basic kernel most of tiling's reuse for free, so the bytes that reach DRAM barely differ "+
					"(about 8 a point for every kernel, as the profile below shows); and tiling keeps its costs: a barrier per "+
					"block, the halo loaded again by each neighbour, and 58 %% of the threads idle while the others compute.",
					rank, strings.Join(shares, ", "))}, nil
		}},
	{Notebook: "07", ID: "q2", Name: "the model's share for basic", Tol: 0.5, Forms: []string{"8/32"},
		Solve: func() (Answer, error) {
			m, err := model.ModelShare("basic", 512, 8)
			if err != nil {
				return Answer{}, err
			}
			return Answer{Want: m,
				Mistakes: []Mistake{
					{100 * 8 / 28.0, "Did you count the store? A point is loaded seven times and stored once."},
					{100 / 7.0, "Did you count the store? The copy moves a read and a write per point, 8 bytes."},
				},
				Working: fmt.Sprintf("8 useful bytes over 7·4 + 4 = 32 moved: %.0f %%. The measured share is higher, because "+
					"the caches serve most of the seven loads.", m)}, nil
		}},
	{Notebook: "07", ID: "q3", Name: "the roof at 13/8 OP/B", RelTol: 0.03,
		Solve: func() (Answer, error) {
			bw, err := copyAt512()
			if err != nil {
				return Answer{}, err
			}
			want := 13.0 / 8 * bw
			return Answer{Want: want,
				Mistakes: []Mistake{
					{13.0 / 4 * bw, "Did you count the store? One read and one write a point are 8 bytes, not 4."},
					{13.0 / 32 * bw, "13/32 is the chapter's count for basic; the question asks for a sweep that reads each input once."},
				},
				Working: fmt.Sprintf("13/8 × %.0f GB/s ≈ %.0f GFLOP/s (a prediction within three percent passes). That is "+
					"the roof for every seven-point sweep under the boundary contract; the fast kernel comes close to it.", bw, want)}, nil
		}},

	{Notebook: "07b", ID: "q1", Name: "outputs of a 24² tile after 4 steps, % of its points", Tol: 1, Forms: []string{"16²"},
		Solve: func() (Answer, error) {
			t, k := lab.TemporalSimTile, 4
			want := 100 * float64((t-2*k)*(t-2*k)) / float64(t*t)
			return Answer{Want: want,
				Mistakes: []Mistake{
					{100 * float64((t-k)*(t-k)) / float64(t*t), "Each time step's valid region shrinks by one point on every side: how many does a row lose in k steps?"},
					{100 * float64((t-2)*(t-2)) / float64(t*t), "That is one time step. How many points does a row lose in k?"},
				},
				Working: fmt.Sprintf("(T − 2k)² / T² = (%d − %d)² / %d² = %d² / %d² ≈ %.1f %%: each step's valid region loses a point "+
					"on every side, two a row, so after k = %d steps a row of %d input points has %d outputs. More than half "+
					"of the tile is halo.", t, 2*k, t, t-2*k, t, want, k, t, t-2*k)}, nil
		}},
	{Notebook: "07b", ID: "q2", Name: "useful OP/B of a 24² tile at k = 4", Tol: 0.05,
		Solve: func() (Answer, error) {
			t, k := lab.TemporalSimTile, 4
			performed, useful := lab.TemporalIntensity(t, k)
			return Answer{Want: useful,
				Mistakes: []Mistake{
					{performed, "That counts every stage's work on the halo too; which points end in an output?"},
					{lab.IntensityLimit, "That is one sweep's limit; k steps per load do more work per byte."},
				},
				Working: fmt.Sprintf("13k(T − 2k)² / 4T² = 13·%d·%d² / (4·%d²) ≈ %.2f OP/B, against %.2f performed: %.2f times a "+
					"single sweep's limit of %.2f, although more than half of the work is spent on the halo.",
					k, t-2*k, t, useful, performed, useful/lab.IntensityLimit, lab.IntensityLimit)}, nil
		}},

	{Notebook: "08", ID: "q1", Name: "a whole step's GFLOP/s on the K20", Tol: 1,
		Solve: func() (Answer, error) {
			h, okH := sediment.PaperK20.Row(sediment.KernelH, "opt3")
			s, okS := sediment.PaperK20.Row(sediment.KernelS, "opt1")
			if !okH || !okS {
				return Answer{}, fmt.Errorf("nbrun: the K20's table lacks the OPT-3 h or OPT-1 s row")
			}
			step, err := sediment.PaperK20.StepGFLOPs("opt3", "opt1")
			if err != nil {
				return Answer{}, err
			}
			mean := (55*h.GFLOPs + 34*s.GFLOPs) / 89
			return Answer{Want: step,
				Mistakes: []Mistake{
					{mean, "That is the flop-weighted mean of the two rates, the paper's figure; but the kernels run one after the other: their times add, not their rates."},
					{h.GFLOPs + s.GFLOPs, "The kernels run one after the other, not side by side: add their times per point."},
				},
				Working: fmt.Sprintf("89 / (55/%g + 34/%g) ≈ %.0f GFLOP/s. The two kernels run one after the other, so their "+
					"times add and the rates combine harmonically. The paper's 165 is the flop-weighted arithmetic mean, "+
					"(55·%g + 34·%g)/89 ≈ %.1f, which overstates the step's speed (erratum).",
					h.GFLOPs, s.GFLOPs, step, h.GFLOPs, s.GFLOPs, mean)}, nil
		}},
	{Notebook: "08", ID: "q2", Working: "80/48 ≈ 1.67 times. The measured speed-up is a little lower, since the fused kernel " +
		"does not quite reach the Baseline's bandwidth (its divisions and registers)."},

	{Notebook: "11", ID: "q1", Name: "halo time / compute time, 4 GPUs at N = 512", Tol: 0.004,
		Solve: func() (Answer, error) {
			bw, err := data.H200CopyGBps(512)
			if err != nil {
				return Answer{}, err
			}
			want := model.HaloRatio(512, 4, bw, model.NVLinkGBps)
			return Answer{Want: want,
				Mistakes: []Mistake{
					{want / 2, "Does a GPU in the middle send one plane, or one each way?"},
					{want / 4, "How many points does each GPU sweep: N³, or N³/G?"},
					{1 / want, "Which of the two times is on top of the fraction?"},
				},
				Working: fmt.Sprintf("4 · %.0f / (512 · %d) ≈ %.3f: the exchange costs about 1/%.0f of the sweep, if NVLink ran "+
					"at its full rate. That is worth hiding (overlapping the exchange of the boundary planes with the sweep of the "+
					"interior), and doubling G or halving N doubles it. At N = 2048 on two GPUs it is under a hundredth.",
					bw, model.NVLinkGBps, want, 1/want)}, nil
		}},
	{Notebook: "11", ID: "q2a", Name: "messages per time step, 4 ranks",
		Solve: func() (Answer, error) {
			run, err := model.RunSplitCPU("reference", 96, 4, 0, 0)
			if err != nil {
				return Answer{}, err
			}
			want := run.Result.Comm.MessagesPerStep()
			return Answer{Want: want,
				Mistakes: []Mistake{
					{8, "How many neighbours do the two ranks at the ends have?"},
					{3, "Does a boundary between two slabs carry a message in one direction only?"},
				},
				Working: fmt.Sprintf("2·(G − 1) = %.0f messages, one each way across each of the three boundaries.", want)}, nil
		}},
	{Notebook: "11", ID: "q2b", Name: "halo bytes per time step, 4 ranks on 96³", Forms: []string{"6 · 96² · 4", "6·96²·4"},
		Solve: func() (Answer, error) {
			run, err := model.RunSplitCPU("reference", 96, 4, 0, 0)
			if err != nil {
				return Answer{}, err
			}
			want := run.Result.Comm.BytesPerStep()
			return Answer{Want: want,
				Mistakes: []Mistake{
					{6 * 94 * 94 * 4, "Does a halo plane hold the points of its plane's edges too: 96×96, or 94×94?"},
					{8 * 96 * 96 * 4, "Do the ranks at the ends send two planes?"},
					{6 * 96 * 96, "How many bytes is a float?"},
				},
				Working: fmt.Sprintf("Six messages, each a plane of 96² floats: 6 · 96² · 4 = %s bytes per time step. The "+
					"middle ranks receive twice what the end ranks do, for the same number of points computed.", group(want))}, nil
		}},
	{Notebook: "11", ID: "q3", Name: "pencils' halo bytes over slabs', 8 ranks on 130³", Tol: 0.03, Forms: []string{"8/14"},
		Solve: func() (Answer, error) {
			slabs, err := model.RunSplitCPU("reference", 130, 8, 0, 0)
			if err != nil {
				return Answer{}, err
			}
			pencils, err := model.RunSplitCPU("reference", 130, 8, 2, 0)
			if err != nil {
				return Answer{}, err
			}
			want := pencils.Result.Comm.BytesPerStep() / slabs.Result.Comm.BytesPerStep()
			return Answer{Want: want,
				Mistakes: []Mistake{
					{0.625, "Is that the busiest rank alone? The question counts all ranks: how many boundaries does each split have, and how large is a face across each?"},
					{1, "Are a pencil's faces as large as a slab's? A z face spans only N/py rows."},
				},
				Working: fmt.Sprintf("Slabs: 7 boundaries, a plane of N² each way: 14N². Pencils, 4 along z and 2 along y: 3 z "+
					"boundaries in each of 2 columns, faces of N·N/2 each way, 6N²; 1 y boundary in each of 4 slabs, faces of "+
					"N·N/4 each way, 2N²; in all 8N², a ratio of 8/14 ≈ 0.57. The count, %.3f, comes out a little higher, because "+
					"a pencil's local grid holds its halo rows too, so its faces are a row or two wider than N/2.", want)}, nil
		}},
}

// tiledLaunchWorking is the answer to notebook 4's first question.
func tiledLaunchWorking(blocks, threads float64) string {
	return fmt.Sprintf("(120 − 2)/6 rounded up, 20 blocks along each axis (the chapter's (N − 2)/OUT_TILE_DIM + 1 in integer "+
		"arithmetic): %s blocks of 512 threads, %s threads for 1 643 032 interior points. More than twice as many threads as "+
		"the basic kernel starts, and 58 %% of them only load.", group(blocks), group(threads))
}

// coarsenedLaunchWorking is the answer to notebook 5's first question.
func coarsenedLaunchWorking(blocks, threads float64) string {
	return fmt.Sprintf("(120 − 2)/30 rounded up, 4 blocks along each axis, z included: %s blocks of 32·32 = 1 024 threads, %s "+
		"threads for 1 643 032 interior points, each thread computing up to 30 of them. Against the tiled kernel's 4 096 000 "+
		"threads, coarsening starts 62 times fewer.", group(blocks), group(threads))
}
