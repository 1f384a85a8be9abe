package gpu

// The launchers pack their kernels' arguments with the wrappers of
// kernels_gen.go, which cuda2go derives from the extern "C" signatures of
// package cuda: one wrapper per parameter list. The names below are the
// lists that several entries share, or that one entry name has in several
// shapes; every other list is named after its entry.
//
//go:generate go run ../cmd/cuda2go -o kernels_gen.go -name sevenPointArgs=basic -name sevenPointChunkArgs=fast4 -name interiorArgs=copy_interior4 -name sedHArgs=sediment_baseline.cu:sed_h -name sedSArgs=sediment_baseline.cu:sed_s -name sedHRowsArgs=sediment_best.cu:sed_h -name sedSRowsArgs=sediment_best.cu:sed_s
