#pragma once
// Which compiled image of the program a device runs. Per kernel, the CUDA runtime takes the SASS
// built for the device's architecture, or else JIT-compiles the newest PTX it may; a probe kernel
// compiled like the library's kernels reports that choice: its PTX architecture, and whether the
// code has sm_90a's features (wgmma, TMA, setmaxnreg), which code built for plain sm_90 lacks.
#include <atomic>
#include <cuda_runtime.h>
#include "launch.cuh"

namespace gemm::detail {

// Only sm_90a code declares the shared array, so cudaFuncGetAttributes' sharedSizeBytes tells the
// host which kind of image it has. (Never launched; the store keeps the array from being removed.)
template <int = 0>
__global__ void image_probe_kernel(int* sink) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
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

}  // namespace gemm::detail
