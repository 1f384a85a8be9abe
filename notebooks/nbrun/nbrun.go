package nbrun

// This file is the façade: every name a notebook calls, forwarded to the
// sub-package that does the job. A name goes here only when a notebook
// uses it (TestFacadeIsWhatNotebooksCall).

import (
	"stencillab.dev/exercises/grading"
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/draw"
	"stencillab.dev/notebooks/nbrun/exercise"
	"stencillab.dev/notebooks/nbrun/model"
	"stencillab.dev/notebooks/nbrun/predict"
	"stencillab.dev/notebooks/nbrun/run"
	"stencillab.dev/notebooks/nbrun/widgets"
)

// Result is [run.Result]: one sweep of a 3D seven-point step, the lab's run
// (lab.Result: where it ran, its launch, the simulator's counters, its time
// and its output), checked against the CPU reference lab.SevenPoint on the
// same input.
type Result = run.Result

// BenchFile is [data.BenchFile]: the repository's record of the 3D steps
// timed on an NVIDIA H200 with `stencil bench -json`, relative to the
// repository's root.
const BenchFile = data.BenchFile

// DRAMFile is [data.DRAMFile]: where the DRAM traffic a profiler measured is
// recorded (fig.DRAMFile's format, with the card in its device field and its
// name), relative to the repository's root.
const DRAMFile = data.DRAMFile

// MultiGPUGlob is [data.MultiGPUGlob]: where the measured multi-GPU benches
// live, relative to the repository.
const MultiGPUGlob = data.MultiGPUGlob

// NVLinkGBps is [model.NVLinkGBps]: the NVLink bandwidth of an H100 or H200
// SXM, per direction, in 10⁹ B/s: 18 links of 25 GB/s (NVIDIA's H100 and
// H200 datasheets give 900 GB/s in both directions together).
const NVLinkGBps = model.NVLinkGBps

// EBISUGlob is [data.EBISUGlob], which names the cards' comparisons of the
// lab with EBISU (bench/peers-gpu.sh) in docs.
const EBISUGlob = data.EBISUGlob

// PeersGlob is [data.PeersGlob], which names the recorded runs of
// bench/peers.py in figures/data.
const PeersGlob = data.PeersGlob

// ShardedJAXFile is [data.ShardedJAXFile]: the recorded comparison of the
// lab with sharded JAX, relative to the repository.
const ShardedJAXFile = data.ShardedJAXFile

// TemporalBenchGlob is [data.TemporalBenchGlob], which names the recorded
// benches of the temporal step: `stencil bench -steps S -json` runs
// (bench/temporal-gpu.sh), one file per grid side, in figures/data.
const TemporalBenchGlob = data.TemporalBenchGlob

// AnimateHaloExchange is [widgets.AnimateHaloExchange], which draws the
// exchange on the split of nz planes over ranks with halos h deep, step by
// step, into one output that each frame replaces (a saved notebook keeps the
// last frame).
var AnimateHaloExchange = widgets.AnimateHaloExchange

// AnimateZMarch is [widgets.AnimateZMarch], which shows the march in z of
// the coarsened and register-tiled kernels.
var AnimateZMarch = widgets.AnimateZMarch

// Bench is [run.Bench], which times every 3D sweep of gpu.Sweeps3() at its
// default tile on an n×n×n grid on the GPU, reps timed launches each after
// two untimed ones, next to the float4 copy of the same grid, through
// `stencil bench`'s engine (gpu/bench): effective bandwidth counts 8 bytes
// per interior point, and each output is checked against lab.SevenPoint on
// three planes.
var Bench = run.Bench

// BestPencils is [model.BestPencils], which returns the pz×py split of g
// ranks, py > 1, whose busiest rank receives the smallest halo (the first
// such, fewest along y); 0, 0 for g outside 2 … lab.MaxRanks.
var BestPencils = model.BestPencils

// BestTemporalSummary is [data.BestTemporalSummary], which writes, for each
// grid side in increasing order, the best temporal run and its speed-up over
// the fast sweep (BestTemporal).
var BestTemporalSummary = data.BestTemporalSummary

// CUDAExercise is [exercise.CUDAExercise], which grades source, the CUDA C
// of a CUDA exercise (id as its folder: "20_cuda_basic", …), on this
// machine's GPU with the grader's checks (cudacheck.RunLocal), prints the
// report, the score and the kernel's share of the float4 copy at N = 512,
// and draws where one sweep of a 23³ grid is wrong (DiffMap).
var CUDAExercise = exercise.CUDAExercise

// CardFastTable is [data.CardFastTable], which formats the fast sweep of
// CardRuns, one table per card named by its bench's device field: per grid
// side the time steps of each run, one float4 copy of the grid, one run of
// the fast sweep and the sweep's shares of the copy's and the interior
// copy's bandwidth.
var CardFastTable = data.CardFastTable

// CardRuns is [data.CardRuns], which reads every bench of CardBenchGlob and
// returns one CardRun per card and grid side, cards in the order of their
// names and sides increasing: each card gets a row at every side any bench
// holds, one it was not run at having no File.
var CardRuns = data.CardRuns

// CardTemporalTable is [data.CardTemporalTable], which formats CardRuns as
// CardFastTable does, and adds the temporal step at its default: its time,
// its share of the copy (above 100 % where a pass reads and writes each
// point less than once a time step), its points per second over the fast
// sweep's and its march; then, one column for each march any card ran with
// the default's other defines, that march's points per second over the fast
// sweep's.
var CardTemporalTable = data.CardTemporalTable

// CompareModel is [model.CompareModel], which formats a table of the model's
// share of copy bandwidth against the measured share for each run, at N =
// 512, the size the runs were timed at.
var CompareModel = model.CompareModel

// ErrNoSimulation is [run.ErrNoSimulation]: wrapped by the error of Sweep
// for a step that has no simulated kernel (fast) on a machine without a GPU.
var ErrNoSimulation = run.ErrNoSimulation

// FromBench is [data.FromBench], which turns measured results at one grid
// side into HopperRun values, one per kernel in the order of gpu.Steps3(),
// for CompareModel.
var FromBench = data.FromBench

// H200CopyGBps is [data.H200CopyGBps], which returns the float4 copy's
// bandwidth at N = n in the committed H200 bench, BenchFile: the B_mem of
// the model.
var H200CopyGBps = data.H200CopyGBps

// HaloModelTable is [model.HaloModelTable], which prints the model's ratio
// for grids ns on gpus GPUs.
var HaloModelTable = model.HaloModelTable

// HasGPU is [run.HasGPU], which reports whether the gpu package opened a
// device.
var HasGPU = run.HasGPU

// IntensityPlot is [draw.IntensityPlot], which draws an intensity sweep
// against T: the slides' curve 3.25·(1 − 2/T)³ for a block far from the
// faces, the launch model at n with its face blocks, the simulator's counts,
// the basic kernel's 13/28 and the limit 3.25 for reference, and a dashed
// line at the largest tile the kernel can launch with CUDA's default limits.
var IntensityPlot = draw.IntensityPlot

// IntensitySweep is [model.IntensitySweep], which simulates a kernel with an
// input tile (shared-memory tiling, coarsening, register tiling) on an n×n×n
// grid for each tile and returns the three intensities of each.
var IntensitySweep = model.IntensitySweep

// IsMissing is [data.IsMissing], which reports whether err says that a file
// is not there.
var IsMissing = data.IsMissing

// KernelSummary is [draw.KernelSummary], which returns one table of the
// chapter's kernels, each at the tile its recorded run used on an N =
// SummaryN grid (the registered default where the bench has no run): threads
// and shared bytes per block, global loads and stores per output point, the
// chapter's operations per byte as the formula 13·outputs / (4·loads) of one
// block far from the faces with its value, the limit that bounds the tile
// (threads or shared memory, lab.MaxTile with CUDA's default limits) and the
// share of the float4 copy the kernel reached in b, whose card the table
// names.
var KernelSummary = draw.KernelSummary

// MeasuredBench is [data.MeasuredBench], which reads BenchFile.
var MeasuredBench = data.MeasuredBench

// MeasuredDRAM is [data.MeasuredDRAM], which reads DRAMFile at grid side n,
// for the roofline (fig.BandwidthOptions.DRAM).
var MeasuredDRAM = data.MeasuredDRAM

// ModelVsMeasured is [draw.ModelVsMeasured], which draws each run's share of
// the copy bandwidth next to what the chapter's traffic model (ModelShare,
// no cache) predicts, at N = 512; measured is what the measured bars are
// called in the title, e.g.
var ModelVsMeasured = draw.ModelVsMeasured

// MultiGPUBenches is [data.MultiGPUBenches], which reads every committed
// multi-GPU bench, those of a file of several in the order of their names;
// none is no error.
var MultiGPUBenches = data.MultiGPUBenches

// Notebook is [widgets.Notebook]: a writer for text that must appear in
// order with the pictures of a cell.
var Notebook = widgets.Notebook

// PartsTable is [model.PartsTable], which prints the parts of a split: what
// each rank owns and holds.
var PartsTable = model.PartsTable

// PeersChart is [draw.PeersChart], which draws, for one grid side, the share
// of the copy each peer reaches (from RecordedPeers) beside the lab's fast
// sweep and its best temporal run (from TemporalBenches, when they hold that
// side): one bar each, points per second at 8 bytes per point and time step
// over the copy measured in the same process.
var PeersChart = draw.PeersChart

// EBISUTable is [data.EBISUTable], which formats the comparisons with
// EBISU: per card, grid side and star, the lab's sweep and temporal step
// beside EBISU's best gated run.
var EBISUTable = data.EBISUTable

// RecordedEBISU is [data.RecordedEBISU], which returns the comparisons of
// EBISUGlob.
var RecordedEBISU = data.RecordedEBISU

// PeersTable is [data.PeersTable], which formats recorded peers.
var PeersTable = data.PeersTable

// PencilsChart is [draw.PencilsChart], which draws the model's halo of the
// busiest rank, in units of N², against the number of ranks, for z-slabs and
// the best pencils; counted marks the CPU ranks' busiest halo (slabs,
// pencils) at g ranks.
var PencilsChart = draw.PencilsChart

// RecordedPeers is [data.RecordedPeers], which returns the runs of
// PeersGlob; none while nothing is recorded.
var RecordedPeers = data.RecordedPeers

// RecordedRuns is [data.RecordedRuns], which are the H200 runs notebook 07
// compares with the model: the bench file's at N = 512 (FromBench).
var RecordedRuns = data.RecordedRuns

// RepoRoot is [data.RepoRoot], which returns the root of the repository, the
// first folder at or above the working directory whose go.mod declares
// module stencillab.dev.
var RepoRoot = data.RepoRoot

// Reveal is [predict.Reveal], which prints the answer of question id of
// notebook nb: the check of a question with no number to predict, run once
// you have your answer.
var Reveal = predict.Reveal

// RunSplitCPU is [model.RunSplitCPU], which runs steps time steps of step on
// an n³ grid on one domain and split over ranks CPU ranks (py of them along
// y), and compares the outputs bit for bit.
var RunSplitCPU = model.RunSplitCPU

// ScalingChart is [draw.ScalingChart], which draws the efficiency of each
// series of scaling runs of the benches (a kernel, N, strong or weak, an
// overlap variant) against the GPUs, with its compute-only efficiency dashed
// beside it.
var ScalingChart = draw.ScalingChart

// ScalingTable is [data.ScalingTable], which prints the scaling runs of the
// benches: time, efficiency, and the compute-only efficiency beside it.
var ScalingTable = data.ScalingTable

// ShardedJAXTable is [data.ShardedJAXTable], which returns the table of the
// comparison in path (see ReadShardedJAX), or, when the file is not there, a
// line saying that it is not recorded and how to record it.
var ShardedJAXTable = data.ShardedJAXTable

// ShowBroken is [draw.ShowBroken], which runs a broken kernel on the
// simulator and presents it as a lesson: where the mistake comes from and
// what it is, the launch's error if any, the hazard reports, and a DiffMap
// of the output against the reference, shown in the notebook.
var ShowBroken = draw.ShowBroken

// ShowDiff is [draw.ShowDiff], which draws DiffMap of the middle slice, x =
// N/2, in the notebook.
var ShowDiff = draw.ShowDiff

// ShowLeaderboard is [exercise.ShowLeaderboard], which draws the challenge's
// leaderboard from a gradebook.json in the notebook, or says that there is
// none yet.
var ShowLeaderboard = exercise.ShowLeaderboard

// ShowThreads is [widgets.ShowThreads], which shows the figure of one
// block's threads of step (basic, tiled, coarsened, register_tiled or
// fig.Star13), traced on the simulator: which thread loads, computes or
// idles.
var ShowThreads = widgets.ShowThreads

// Simulate is [run.Simulate], which runs a step of the lab that has a
// simulated kernel, or a broken kernel of one (lab.BrokenKernels) by its
// name, on the simulator, even when there is a GPU, so that its counters can
// be read in Stats.
var Simulate = run.Simulate

// SimulateTemporal is [model.SimulateTemporal], which runs one pass of the
// temporal step on an n³ grid on the simulator for each k, and checks each
// against k reference sweeps with the boundary fixed.
var SimulateTemporal = model.SimulateTemporal

// SliderFigure is [widgets.SliderFigure], which shows the figure draw makes
// for value, at w×h, at once: a saved notebook and a headless run keep it.
var SliderFigure = widgets.SliderFigure

// Sweep is [run.Sweep], which runs a 3D step of the lab that runs on a GPU
// once on a random n×n×n grid with the given tile (0 for the step's default)
// and compares the output with lab.SevenPoint.
var Sweep = run.Sweep

// TemporalBenchTable is [data.TemporalBenchTable], which formats recorded
// benches: for each grid side the float4 copy, the interior copy, then each
// run with its time steps, its effective bandwidth (8 bytes per interior
// point and time step), its shares of both copies and its points per second
// against the fast sweep's in the same file.
var TemporalBenchTable = data.TemporalBenchTable

// TemporalBenches is [data.TemporalBenches], which returns the recorded
// benches of TemporalBenchGlob; none (and no error) while nothing is
// recorded.
var TemporalBenches = data.TemporalBenches

// TemporalLimits is [model.TemporalLimits], which works out, without a
// device, what each tile needs and gives at each k: the launch from
// gpu.PlanLaunch at N = 512, with the march it chooses at k.
var TemporalLimits = model.TemporalLimits

// TemporalLimitsChart is [draw.TemporalLimitsChart], which draws the ideal
// DRAM bytes per point and time step of each tile against k, with one
// sweep's 8 bytes; a tile whose shared memory exceeds HopperSharedOptin at
// some k is left out there.
var TemporalLimitsChart = draw.TemporalLimitsChart

// TemporalLimitsTable is [model.TemporalLimitsTable], which formats
// TemporalLimits.
var TemporalLimitsTable = model.TemporalLimitsTable

// TemporalSimTable is [model.TemporalSimTable], which formats simulated
// passes, one line per k: the traffic per interior point and time step,
// which one sweep keeps at one load and one store.
var TemporalSimTable = model.TemporalSimTable

// TimelineChart is [draw.TimelineChart], which draws, for one scaling run,
// each GPU's time of one repetition as a bar of compute, exchange and wait.
var TimelineChart = draw.TimelineChart

// TimelineRun is [data.TimelineRun], which returns the run whose timeline
// the notebook draws: strong scaling on the most GPUs at the smallest N,
// with per-GPU times, the backend's default overlap first.
var TimelineRun = data.TimelineRun

// TrafficHeight is [draw.TrafficHeight]: a good height for TrafficPlot of n
// runs.
var TrafficHeight = draw.TrafficHeight

// TrafficPlot is [draw.TrafficPlot], which draws, for simulated runs, the
// global-memory bytes each interior output point costs: loaded and stored,
// as the simulator counted them, against the ideal of one 4-byte read and
// one 4-byte write per point.
var TrafficPlot = draw.TrafficPlot

// Unset is [predict.Unset]: the value of a prediction not made yet: the
// notebooks' question cells start with it.
var Unset = predict.Unset

// Where is [run.Where], which says where Sweep runs on this machine: the
// GPU's name, or "no GPU found (reason): running on the CPU simulator".
var Where = run.Where

// Check is [predict.Check], which grades the prediction got of question id
// of notebook nb, as Predict does, and once a prediction has been made (got
// is not Unset) prints the answer and its working under the score.
func Check[N predict.Number](nb, id string, got N) grading.ExerciseResult {
	return predict.Check(nb, id, got)
}
