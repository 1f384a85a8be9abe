// Package run runs the chapter's 3D seven-point steps for a notebook and
// checks each output against the CPU reference lab.SevenPoint, point by
// point.
//
// Sweep runs a step on the GPU when the gpu package can open a device, and
// otherwise on lab's simulated GPU, saying so in plain words (Where).
// Simulate always uses the simulator, whose counters (sim.Stats) a real GPU
// cannot give. Bench times every step live on the GPU through gpu/bench.
//
// The output grid starts poisoned with a NaN of a payload no arithmetic
// produces, so a comparison tells three things apart: a point that is
// right, a point that was written with a wrong value (a computed NaN
// included), and a point that no thread wrote (Result.Classify).
package run
