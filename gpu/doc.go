// Package gpu runs the lab's steps on an NVIDIA GPU.
//
// It needs no CUDA at build time: through its binding, package gpu/cu, the
// CUDA driver (libcuda.so.1) and NVRTC (libnvrtc.so.13, .12, .11.2 or
// libnvrtc.so) are opened with dlopen when a device is first opened, and
// the CUDA C sources of package cuda are compiled at run time to a CUBIN
// for the device's own architecture. STENCIL_LIBCUDA and STENCIL_LIBNVRTC
// name other libraries to open instead.
//
// On a machine without the driver, Open and Default return an error that
// wraps ErrNoGPU; the steps registered with lab return it too, so
// `stencil run -backend gpu` says what is missing instead of crashing.
//
// Every CUDA call runs on one goroutine locked to its OS thread, where the
// device's context is current: a CUDA context is current per thread, and
// Go moves goroutines between threads.
//
// Two levels of API:
//
//   - the steps with the signatures of their lab references: the 3D
//     seven-point kernels through lab.Sweeper(name, lab.GPU, cfg), and
//     Derivative and Sweep2 for 1D and 2D. Each call copies the grids to
//     the device and back;
//   - device-resident buffers (Device.Alloc), compiled kernels
//     (Device.Stencil3, Device.Derivative1, Device.FivePoint2) and launches
//     timed with CUDA events that report their launch geometry, for
//     benchmarks and notebooks.
//
// A step split over several GPUs, or several processes, is package
// gpu/multi's; it builds on what extend.go gives it (the binding, a
// device's thread, a buffer's address, a prepared launch).
package gpu
