package gpu

// The launchers pack their kernels' arguments with the wrappers of
// kernels_gen.go, which cuda2go derives from the extern "C" signatures of
// package cuda: one wrapper per parameter list. The names below are the
// lists that several entries share, or that one entry name has in several
// shapes; every other list is named after its entry. The sediment case
// study's entries are gpu/sediment's (its kernels.go).
//
//go:generate go run ../cmd/cuda2go -o kernels_gen.go -skip sediment_*.cu -name sevenPointArgs=basic -name sevenPointChunkArgs=fast4 -name interiorArgs=copy_interior4 -name thirteenPointChunkArgs=star13
