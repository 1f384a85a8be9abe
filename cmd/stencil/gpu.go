package main

// The gpu package registers the 3D steps on the gpu backend (lab.GPU), so
// that `stencil run -backend gpu` finds them, and provides the device API
// that `stencil bench` uses.
import _ "stencillab.dev/gpu"
