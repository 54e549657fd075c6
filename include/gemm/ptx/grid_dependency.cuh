#pragma once
// Programmatic dependent launch (sm_90). The library launches its kernels with it
// (detail::launch_kernel_in_clusters): a kernel's blocks may then start on the SMs the stream's
// previous kernel has left, while that kernel's last blocks finish, and set up (shared memory,
// barriers, descriptors) before it is done. Each kernel waits for it before touching global memory.
//
// The library's kernels do not call griddepcontrol.launch_dependents: without it the next kernel's
// blocks start as this kernel's blocks exit, which measured fastest. Called at the start of a
// block it made some back-to-back calls slower than no dependent launch at all (128 x 8192 x 8192
// NT: 44.8 us, against 38.8-39.3 without dependent launch and 37.5-37.7 without the call; H200,
// docs/design/dependent-launch.md).
namespace gemm::ptx {

// Blocks until the stream's previous kernel has finished and its writes are visible; a no-op
// without a dependent launch and before sm_90. Every kernel of the library calls it, in every block
// that touches global memory, before its first access: the previous kernel may still read what this one writes (C, a
// workspace), and the kernel after this one may start once this one's blocks have exited, so this
// one must not finish before the one before it.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace gemm::ptx
