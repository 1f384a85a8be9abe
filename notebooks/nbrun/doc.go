// Package nbrun is what the notebooks import: a façade that forwards each
// name a notebook calls (nbrun.Sweep, nbrun.Check, nbrun.SliderFigure …)
// to the sub-package that does the job, so that a notebook cell stays a
// few lines long and every path a cell takes is covered by tests, on the
// GPU as well as on the CPU. The façade holds exactly the names the
// notebooks call (TestFacadeIsWhatNotebooksCall); commands and tests
// import the sub-packages. Each sub-package has one job, and each imports
// only those listed before it:
//
//   - run: runs a 3D step on the GPU or lab's simulator (Sweep, Simulate),
//     times the steps live (Bench), and classifies each output point
//     against the CPU reference (Result, Class);
//   - data: reads the committed records, bounded in size (benches, the
//     cards' temporal runs, multi-GPU and peers runs, sharded JAX), and
//     writes their tables;
//   - model: what the chapter's models predict and the CPU experiments
//     that test them (intensity, halo ratios and pencils, the split run,
//     temporal blocking's limits and simulation);
//   - draw: the charts, diff maps and summaries;
//   - widgets: what a cell shows live: sliders with a busy sign, the
//     animations, and the writer to the notebook;
//   - exercise: notebook 09's CUDA exercise cell and the class leaderboard;
//   - predict: the prediction questions, their checks and answers, and the
//     guard against answers leaking into the text before a check.
package nbrun
