// Package nbrun holds the code paths that the notebooks 03 to 07 share,
// so that a notebook cell stays a few lines long and every path a cell
// takes is covered by this package's tests, on the GPU as well as on the
// CPU.
//
// Sweep runs one of the chapter's 3D seven-point steps on the GPU when the
// gpu package can open a device, and otherwise on lab's simulated GPU,
// saying so in plain words (Where). Simulate always uses the simulator,
// whose counters (sim.Stats) a real GPU cannot give. Either way the output
// is compared with the CPU reference lab.SevenPoint, point by point.
//
// The output grid starts poisoned with a NaN of a payload no arithmetic
// produces, so a comparison tells three things apart: a point that is
// right, a point that was written with a wrong value (a computed NaN
// included), and a point that no thread wrote. DiffMap draws those
// classes on a slice through the grid.
//
// Bench and MeasuredBench give the GPU timings notebook 07 draws with
// fig.Bandwidth: measured live when there is a GPU, read from the
// committed bench file otherwise.
package nbrun
