package exercise

import (
	"fmt"
	"math"
	"os"
	"strings"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun/draw"
	"stencillab.dev/notebooks/nbrun/run"
)

// CUDADiffN is the side of the grid whose sweep CUDAExercise draws: not a
// multiple of any tile the exercises use.
const CUDADiffN = 23

// CUDAExercise grades source, the CUDA C of a CUDA exercise (id as its
// folder: "20_cuda_basic", …), on this machine's GPU with the grader's
// checks (cudacheck.RunLocal), prints the report, the score and the
// kernel's share of the float4 copy at N = 512, and draws where one sweep
// of a 23³ grid is wrong (DiffMap). Without a GPU it prints the report and
// the score line the grader's own report gives (grading.ScoreLine): the
// exercise is graded on a GPU later, and its points are not counted here.
func CUDAExercise(id, source string) (grading.ExerciseResult, error) {
	res, env, err := cudacheck.RunLocal(id, source)
	if err != nil {
		return res, err
	}
	if err := res.WriteText(os.Stdout); err != nil {
		return res, err
	}
	fmt.Println(res.ScoreLine())
	if res.Status == grading.NeedsGPU {
		return res, nil
	}
	if pct, ok := res.Metrics["pct_copy"]; ok {
		fmt.Printf("Speed: %.3f ms at N = %d, %.1f %% of the float4 copy (%.3f ms) in this process\n",
			res.Metrics["ms"], cudacheck.PerfN, pct, res.Metrics["copy_ms"])
	}
	if env == nil || res.Status == grading.BuildFailed {
		return res, nil
	}
	in, out, want, err := env.SweepCube(CUDADiffN, run.Seed, math.Float32frombits(run.PoisonBits))
	if err != nil {
		fmt.Printf("no map of the output: %v\n", err)
		return res, nil
	}
	diff, err := lab.Compare3(out, want)
	if err != nil {
		return res, err
	}
	r := run.Result{Result: lab.Result{Step: strings.TrimSuffix(env.Spec.File, ".cu"), Backend: "GPU", Device: env.Device,
		NZ: CUDADiffN, NY: CUDADiffN, NX: CUDADiffN, Src: in, Out: out}, Want: want, Diff: diff}
	return res, draw.ShowDiff(r)
}
