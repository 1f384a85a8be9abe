package sediment

// The launchers pack their kernels' arguments with the wrappers of
// kernels_gen.go, which cuda2go derives from the extern "C" signatures of
// package cuda's sediment_*.cu files, with gpu's Args. The names below are
// the lists that several entries share, or that one entry name has in
// several shapes; every other list is named after its entry.
//
//go:generate go run ../../cmd/cuda2go -o kernels_gen.go -pkg sediment -qual gpu -files sediment_*.cu -name sedHArgs=sediment_baseline.cu:sed_h -name sedSArgs=sediment_baseline.cu:sed_s -name sedHRowsArgs=sediment_best.cu:sed_h -name sedSRowsArgs=sediment_best.cu:sed_s
