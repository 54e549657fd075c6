#pragma once
// Which compiled image of the program a device runs. Per kernel, the CUDA runtime takes the SASS
// built for the device's architecture, or else JIT-compiles the newest PTX it may; a probe kernel
// compiled like the library's kernels reports that choice: its PTX architecture, and whether the
// code has sm_90a's features (wgmma, TMA, setmaxnreg), which code built for plain sm_90 lacks.
#include <atomic>
#include <cuda_runtime.h>
#include "../ptx/grid_dependency.cuh"
#include "launch.cuh"

namespace gemm::detail {

// Only sm_90a code declares the shared array, so cudaFuncGetAttributes' sharedSizeBytes tells the
// host which kind of image it has. (Never launched; the store keeps the array from being removed.)
template <int = 0>
__global__ void image_probe_kernel(int* sink) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  ptx::wait_for_prior_grid();  // (never launched; every kernel of the library waits, tools/check_kernels.py)
  __shared__ int marker[8];
  marker[threadIdx.x % 8] = static_cast<int>(threadIdx.x);
  __syncwarp();
  if (sink != nullptr) *sink = marker[(threadIdx.x + 1) % 8];
#else
  (void)sink;
#endif
}

struct Image {
  int arch = 0;        // the PTX architecture the code was compiled for, 10 * major + minor
  bool wgmma = false;  // sm_90a code: the Hopper kernels have their bodies
};

// Asked of CUDA once per device and process. (A template, so that only a file whose calls ask
// compiles the probe: a file that declares its instances with GEMM_EXTERN holds no kernel.)
template <int = 0>
Status image_of(const DeviceInfo& dev, Image& image) {
  static std::atomic<int> cached[64] = {};  // 0: not asked yet; else arch * 2 + wgmma + 1
  if (dev.device >= 0 && dev.device < 64) {
    if (const int c = cached[dev.device].load(std::memory_order_acquire); c > 0) {
      image.arch = (c - 1) / 2, image.wgmma = (c - 1) % 2 != 0;
      return Status::Success;
    }
  }
  cudaFuncAttributes attr{};
  const cudaError_t err = cudaFuncGetAttributes(&attr, image_probe_kernel<>);
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
    cudaGetLastError();
    return record(err, Status::UnsupportedArchitecture);
  }
  if (err != cudaSuccess) {
    cudaGetLastError();
    return record(err, Status::CudaError);
  }
  image.arch = attr.ptxVersion;
  image.wgmma = attr.sharedSizeBytes > 0;
  if (dev.device >= 0 && dev.device < 64)
    cached[dev.device].store(image.arch * 2 + (image.wgmma ? 1 : 0) + 1, std::memory_order_release);
  return Status::Success;
}

// k slices for a CUDA-core kernel whose slices of one block's columns are the blocks of a thread
// block cluster (few_rows_kernel, dot_rows_kernel): `wanted` (as the caller's occupancy rule asks),
// at most max_slices and at least min_slice k each; 1 off sm_90, or where the running image is not
// sm_90 code (an sm_90 device running older PTX through the JIT has no cluster code).
template <int = 0>
int cluster_k_slices(long long wanted, int k, int max_slices, int min_slice, const DeviceInfo& dev) {
  if (max_slices == 1 || wanted <= 1 || dev.arch < 90) return 1;
  Image image;
  if (image_of(dev, image) != Status::Success || image.arch < 90) return 1;
  long long s = wanted < max_slices ? wanted : max_slices;
  if (s > k / min_slice) s = k / min_slice;
  return s > 1 ? static_cast<int>(s) : 1;
}

}  // namespace gemm::detail
