package gpu

// WithFake is withFake for the tests of the packages built on gpu that
// live in this folder (package gpu_test): gpu/sediment's launchers run on
// the fake there.
var WithFake = withFake
