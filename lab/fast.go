package lab

// Our fastest single sweep, beyond the chapter: a bandwidth-tuned kernel
// for modern GPUs. It runs on a GPU only; its launch and its tuning
// parameters belong to the gpu backend, which chooses the planes each
// block marches through per grid unless a tile gives them.
var _ = mustRegister3(Step3{
	Step: Step{Name: "fast", Title: "Beyond the chapter: our fastest kernel",
		Runs:     "a bandwidth-tuned seven-point sweep for modern GPUs",
		Notebook: "07_measuring_on_a_gpu"},
	TileName: "z planes per block",
	MinTile:  1,
	// fast4 sweeps rows of a multiple of 4 points with float4 accesses;
	// fast1, its scalar twin in the same file, the others. The file is
	// the default mode's; the gpu backend's tuning puts fast_common.cu in
	// front and picks the file of the mode asked for.
	CUDA: CUDA{File: "fast_bulk.cu", Entry: "fast4"},
})
