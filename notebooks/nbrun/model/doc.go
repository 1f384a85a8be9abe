// Package model holds what the chapter's models predict and the CPU and
// simulator experiments that test them: the share of the copy bandwidth a
// step's traffic allows (ModelShare), the intensities of a tiled kernel
// (IntensitySweep), the halo of a split over GPUs (HaloRatio, BestPencils,
// RunSplitCPU) and the limits and simulation of temporal blocking.
package model
