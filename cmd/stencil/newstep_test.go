package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/figures/fig"
	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun/draw"
	"stencillab.dev/notebooks/nbrun/run"
)

// throwawaySource is the CUDA C of the throwaway step: the basic kernel of
// Fig. 8.6, under another name.
const throwawaySource = `
extern "C" __global__ void throwaway(const float* in, float* out, int nz, int ny, int nx,
                                     float c0, float c1, float c2, float c3, float c4, float c5, float c6)
{
    const int i = blockIdx.z * blockDim.z + threadIdx.z;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < nz - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nx - 1) {
        const long long p = ((long long)i * ny + j) * nx + k;
        out[p] = c0 * in[p] + c1 * in[p - 1] + c2 * in[p + 1] + c3 * in[p - nx] + c4 * in[p + nx]
               + c5 * in[p - (long long)ny * nx] + c6 * in[p + (long long)ny * nx];
    }
}
`

// TestANewStepIsOneDescription proves the claim of lab.Step3: a new 3D step
// is one description (in the lab, one file; here, this test) and one CUDA
// source. It registers a throwaway step, the basic kernel under another
// name with its own tiny source, and shows that the catalogue, the
// simulator, the cost model, the GPU's launch and defines, `stencil steps`
// and `stencil run`, nbrun and the figures' styling lookup all take it up
// with no other edit; the styling lookup, whose table is the figures' own,
// names the row the new step lacks. The registration changes the lab's
// global list, so it runs in a child process of this test binary.
func TestANewStepIsOneDescription(t *testing.T) {
	if os.Getenv("STENCIL_TEST_THROWAWAY") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestANewStepIsOneDescription$", "-test.v")
		cmd.Env = append(os.Environ(), "STENCIL_TEST_THROWAWAY=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), "--- PASS: TestANewStepIsOneDescription")
		return
	}
	const name = "throwaway_basic"
	basic, err := lab.StepOfFigure("8.6")
	require.NoError(t, err)
	s := lab.Step3{
		Step: lab.Step{Name: name, Title: "A throwaway copy of the basic kernel", Runs: "what the basic kernel does",
			Notebook: "99_throwaway"},
		DefaultTile: 4, MinTile: 1, TileName: "block edge", BlockShape: true,
		Geometry: basic.Geometry, Cost: basic.Cost, LaunchLoads: basic.LaunchLoads, Explain: basic.Explain,
		Kernel: basic.Kernel,
		CUDA:   lab.CUDA{File: "throwaway.cu", Entry: "throwaway", Source: throwawaySource},
	}

	// A step that lacks a part is refused with the part named.
	incomplete := s
	incomplete.Geometry = nil
	assert.ErrorContains(t, lab.Register3(incomplete), "geometry")
	incomplete = s
	incomplete.Explain = lab.Explain{}
	assert.ErrorContains(t, lab.Register3(incomplete), "explain")
	assert.ErrorIs(t, lab.Register3(incomplete), lab.ErrIncomplete)

	require.NoError(t, lab.Register3(s))
	assert.Error(t, lab.Register3(s), "a name is registered once")

	// The catalogue.
	st, err := lab.LookupStep(name)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Dim)
	assert.True(t, st.Tiled)
	assert.Equal(t, name, lab.Steps()[len(lab.Steps())-1].Name, "the last notebook's step comes last")
	assert.Equal(t, []string{lab.GPU, lab.Sim}, lab.Backends(name))

	// The simulator, through the one way of running a step, on a grid whose
	// sides differ, against the reference.
	src, err := lab.NewGrid3[float32](9, 7, 11)
	require.NoError(t, err)
	src.FillRandom(5)
	c := lab.Coeffs{0.3, 0.11, 0.13, 0.17, 0.19, 0.23, 0.29}
	want := src.Clone()
	require.NoError(t, lab.SevenPoint(want, src, c))
	res, err := lab.Execute(lab.Run{Step: name, Backend: lab.Sim, Src: src, C: c})
	require.NoError(t, err)
	d, err := lab.Compare3(res.Out, want)
	require.NoError(t, err)
	assert.LessOrEqual(t, d.MaxAbs, 1e-5)
	assert.Equal(t, 4, res.Config.Tile, "the new step's own default tile")
	assert.Equal(t, int64(7*7*5*9), res.Stats.GlobalLoads, "seven loads per interior point")

	// The cost model.
	cost, err := lab.Cost(name, 4)
	require.NoError(t, err)
	assert.Equal(t, lab.BlockCost{Outputs: 64, Ops: 13 * 64, Loads: 7 * 64, Threads: 64}, cost)
	g, err := lab.CostGrid(name, 9, 7, 11, 4)
	require.NoError(t, err)
	assert.Equal(t, res.Stats.GlobalLoads, g.Loads)

	// The GPU's launch and source, worked out without a device.
	assert.Contains(t, gpu.Steps3(), name)
	assert.Equal(t, 4, gpu.DefaultTile(name))
	plan, err := gpu.PlanLaunch(name, gpu.Options{Block: [3]int{32, 8, 1}}, 64, 64, 64)
	require.NoError(t, err)
	assert.Equal(t, "throwaway", plan.Entry)
	assert.Equal(t, [3]int{32, 8, 1}, plan.Geometry.Block)
	assert.Equal(t, [3]int{2, 8, 64}, plan.Geometry.Grid)
	assert.Equal(t, "32x8x1", plan.Tile)
	if d, err := gpu.Default(); err == nil { // compile and run it where a GPU is present
		sweep, err := d.Sweeper(name, gpu.Options{})
		require.NoError(t, err)
		out := src.Clone()
		require.NoError(t, sweep(out, src, c))
		d, err := lab.Compare3(out, want)
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, 1e-5)
	} else {
		assert.True(t, errors.Is(err, gpu.ErrNoGPU), "%v", err)
	}

	// The command line.
	code, out, errOut := stencil("steps")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, name+`\s+-\s+gpu,sim\s+A throwaway copy`, out)
	code, out, errOut = stencil("run", "-kernel", name, "-backend", "sim", "-n", "14", "-check", "-json")
	require.Equal(t, 0, code, errOut)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &obj))
	assert.Equal(t, name, obj["kernel"])
	assert.Less(t, obj["max_abs_err"].(float64), 1e-5)

	// nbrun.
	r, err := run.Simulate(name, 13, 0)
	require.NoError(t, err)
	assert.True(t, r.OK())
	assert.Equal(t, 4, r.Tile())

	// The figures' styling: the table is the figures' own, and it names the
	// row the new step lacks instead of drawing it in another step's colour.
	_, err = fig.Style(name)
	assert.ErrorIs(t, err, fig.ErrNoStyle)
	assert.ErrorContains(t, err, "figures/fig/steps.go")
	assert.Equal(t, []string{name}, fig.MissingStyles())
	assert.Contains(t, r.Summary(), name+" on the CPU simulator, N = 13, tile 4")
	_, err = draw.DiffMap(r, 6)
	assert.NoError(t, err, "the diff map does not need a style")
	_, err = draw.TrafficPlot(r)
	assert.ErrorIs(t, err, fig.ErrNoStyle, "a chart in the steps' colours names the missing row")
}

// envInner is set in the copy of the module that TestANewStepIsThreeFiles
// tests, so that the copy does not copy itself again.
const envInner = "STENCIL_TEST_NEWSTEP_COPY"

// newStepFiles returns the three files of a copy of basic under the name
// basic_copy, made from the module at root as a contributor would make
// them: lab/basic_copy.go and cuda/basic_copy.cu are basic's with the
// names changed, and figures/fig/steps.go gains the step's row.
func newStepFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		require.NoError(t, err)
		return string(b)
	}
	replace := func(s string, pairs ...string) string {
		for i := 0; i < len(pairs); i += 2 {
			require.Contains(t, s, pairs[i], "the copy of basic expects %q", pairs[i])
			s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
		}
		return s
	}
	goFile := replace(read("lab/basic.go"),
		`Name: "basic", Title: "Basic kernel: one thread per output point", Figure: "8.6",`,
		`Name: "basic_copy", Title: "A copy of the basic kernel",`,
		`Name:  "basic",`, `Name:  "basic_copy",`,
		`CUDA{File: "basic.cu", Entry: "basic"}`, `CUDA{File: "basic_copy.cu", Entry: "basic_copy"}`,
		"BasicBlockDim", "BasicCopyBlockDim", "basicGeometry", "basicCopyGeometry", "BasicKernel", "BasicCopyKernel")
	cuFile := replace(read("cuda/basic.cu"), "void basic(", "void basic_copy(", "// basic.cu:", "// basic_copy.cu: a copy of basic.cu;")
	styles := replace(read("figures/fig/steps.go"), "\n\t\"copy\": ",
		"\n\t\"basic_copy\": {Color: Vermillion, Glyph: draw.CircleGlyph{}, Radius: 3.2, Title: \"basic copy\", Short: \"basic copy\"},\n\t\"copy\": ")
	return map[string]string{"lab/basic_copy.go": goFile, "cuda/basic_copy.cu": cuFile, "figures/fig/steps.go": styles}
}

// TestANewStepIsThreeFiles proves what CONTRIBUTING's "Adding a step"
// promises: in a copy of the module as committed (git archive HEAD), a copy
// of basic under a new name is three files, lab/basic_copy.go,
// cuda/basic_copy.cu and its row in figures/fig/steps.go, and with no other
// edit the whole copy vets and the packages that enumerate the steps pass
// their tests. It takes minutes, so -short skips it.
func TestANewStepIsThreeFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("vets a copy of the whole module and tests its packages that enumerate the steps (minutes): run without -short")
	}
	if os.Getenv(envInner) == "1" {
		t.Skip("this is the copy the test made; it does not copy itself again")
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("needs git to list the module's files")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command to test the copy")
	}
	out, err := exec.Command(goBin, "env", "GOMOD").Output()
	require.NoError(t, err)
	root := filepath.Dir(strings.TrimSpace(string(out)))
	tarBin, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("needs tar to unpack the module's committed tree")
	}
	// The module as committed (git archive HEAD), as the exercises'
	// generator test copies it: another checkout's work in progress is no
	// part of the proof.
	dir := t.TempDir()
	archive := filepath.Join(t.TempDir(), "head.tar")
	if out, err := exec.Command(gitBin, "-C", root, "archive", "-o", archive, "HEAD").CombinedOutput(); err != nil {
		t.Skipf("needs a git checkout of the module to copy: %v: %s", err, out)
	}
	untar := exec.Command(tarBin, "-xf", archive)
	untar.Dir = dir
	out, err = untar.CombinedOutput()
	require.NoError(t, err, "%s", out)
	files := newStepFiles(t, dir)
	names := slices.Sorted(maps.Keys(files))
	assert.Equal(t, []string{"cuda/basic_copy.cu", "figures/fig/steps.go", "lab/basic_copy.go"}, names, "three files")
	// The copy is a checkout of its own, as tests that read the
	// repository's history need: the module as it is, then the step's
	// commit of three files.
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command(gitBin, append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=newstep", "GIT_AUTHOR_EMAIL=newstep@example.invalid",
			"GIT_COMMITTER_NAME=newstep", "GIT_COMMITTER_EMAIL=newstep@example.invalid")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	}
	gitIn("init", "-q")
	gitIn("add", "-A")
	gitIn("commit", "-q", "--no-gpg-sign", "-m", "the module")
	for rel, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644))
	}
	gitIn("add", "-A")
	gitIn("commit", "-q", "--no-gpg-sign", "-m", "lab, cuda, figures: basic_copy, a copy of basic")
	status, err := exec.Command(gitBin, "-C", dir, "show", "--name-only", "--format=", "HEAD").Output()
	require.NoError(t, err)
	assert.Equal(t, names, strings.Fields(string(status)), "the step's commit is three files")

	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	// Every package of the copy must build and vet with the new step; the
	// tests that run are those of the packages that enumerate the registered
	// steps (stepEnumerators): a package that only names a step it is given
	// cannot meet the new one, and running every test a second time inside
	// make test would double its time. STENCIL_TEST_NEWSTEP_PKGS narrows or
	// widens the list while one looks into a failure.
	vet := exec.CommandContext(ctx, goBin, "vet", "./...")
	vet.Dir = dir
	vet.Env = append(os.Environ(), envInner+"=1", "GOPROXY=off")
	out, err = vet.CombinedOutput()
	require.NoError(t, err, "go vet ./... in the copy with a new step of three files:\n%s", out)
	pkgs := strings.Fields(os.Getenv("STENCIL_TEST_NEWSTEP_PKGS"))
	if len(pkgs) == 0 {
		pkgs = stepEnumerators(ctx, t, goBin, dir)
	}
	t.Logf("testing the packages that enumerate the steps: %s", strings.Join(pkgs, " "))
	cmd := exec.CommandContext(ctx, goBin, append([]string{"test"}, pkgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envInner+"=1", "STENCILLAB_EXERCISES_UNGRADED=1", "GOPROXY=off")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	require.NoError(t, err, "go test %s in the copy with a new step of three files:\n%s", strings.Join(pkgs, " "), buf.String())
}

// stepEnumerators lists the packages of the module at dir that enumerate
// the lab's registered steps: the lab itself, and every package whose
// files, tests included, call one of the lab's enumerating functions. Those
// are read from the lab's own source (enumerators), so that a new way to
// list the steps is taken up with no edit here.
func stepEnumerators(ctx context.Context, t *testing.T, goBin, dir string) []string {
	t.Helper()
	const labPath = "stencillab.dev/lab"
	list := exec.CommandContext(ctx, goBin, "list", "-f",
		`{{.ImportPath}}{{"\t"}}{{.Dir}}{{"\t"}}{{join .GoFiles " "}} {{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}`, "./...")
	list.Dir = dir
	list.Env = append(os.Environ(), "GOPROXY=off")
	out, err := list.Output()
	require.NoError(t, err, "go list in the copy")
	type pkg struct {
		path, dir string
		files     []string
	}
	var all []pkg
	var labDir string
	var labFiles []string
	for line := range strings.Lines(string(out)) {
		f := strings.SplitN(strings.TrimRight(line, "\n"), "\t", 3)
		require.Len(t, f, 3, "go list line %q", line)
		p := pkg{f[0], f[1], strings.Fields(f[2])}
		all = append(all, p)
		if p.path == labPath {
			labDir, labFiles = p.dir, p.files
		}
	}
	require.NotEmpty(t, labDir, "go list finds the lab")
	names := enumerators(t, labDir, labFiles)
	require.Contains(t, names, "Steps3", "the lab's enumerating functions are read from its source")
	pkgs := []string{labPath}
	for _, p := range all {
		if p.path != labPath && callsAny(t, p.dir, p.files, labPath, names) {
			pkgs = append(pkgs, p.path)
		}
	}
	require.Contains(t, pkgs, "stencillab.dev/gpu", "the GPU launchers enumerate the steps")
	require.Contains(t, pkgs, "stencillab.dev/cmd/stencil", "stencil steps enumerates the steps")
	return pkgs
}

// enumerators returns the names of the lab's exported functions that list
// its steps: those returning a slice of Step or Step3, or of names
// (Names…).
func enumerators(t *testing.T, dir string, files []string) []string {
	t.Helper()
	var names []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || fn.Type.Results == nil {
				continue
			}
			for _, r := range fn.Type.Results.List {
				arr, ok := r.Type.(*ast.ArrayType)
				if !ok || arr.Len != nil {
					continue
				}
				elem, ok := arr.Elt.(*ast.Ident)
				if ok && (elem.Name == "Step" || elem.Name == "Step3" || (elem.Name == "string" && strings.HasPrefix(fn.Name.Name, "Names"))) {
					names = append(names, fn.Name.Name)
				}
			}
		}
	}
	return names
}

// callsAny reports whether a file of the package at dir refers to one of
// the functions names of the package imported as importPath, under
// whatever name the file imports it.
func callsAny(t *testing.T, dir string, files []string, importPath string, names []string) bool {
	t.Helper()
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		local := ""
		for _, imp := range f.Imports {
			if strings.Trim(imp.Path.Value, `"`) != importPath {
				continue
			}
			local = path.Base(importPath)
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
		if local == "" {
			continue
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && slices.Contains(names, sel.Sel.Name) {
					found = true
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}
