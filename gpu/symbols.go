package gpu

// The driver binding has one symbol table per library, the X-macro lists
// CU_SYMBOLS, NVRTC_SYMBOLS and NCCL_SYMBOLS at the top of driver_cgo.go:
// from each line the C preprocessor makes the struct field, the dlsym
// binding and the C wrapper. The Go wrappers in driver_cgo.go are the thin
// conversions of Go values, and driver_nocgo.go, the stand-ins of a build
// without cgo, is generated from them:
//
//go:generate go test -run TestNoCgoStubs -update
