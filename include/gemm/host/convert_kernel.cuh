#pragma once
// Tile conversions for gemm::host's k split with 16-bit C: the tile accumulates in float, is
// widened from C's type once before the first slice (when beta != 0) and narrowed once after the
// last, so C is rounded to its type once, as in a single multiply.
#include <cuda_runtime.h>
#include "../detail/launch.cuh"
#include "../ptx/grid_dependency.cuh"
#include "../types.cuh"

namespace gemm::host::detail {

template <class From, class To>
__global__ void convert_tile_kernel(const From* src, int lds, To* dst, int ldd, int rows, int cols) {
  ::gemm::ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  const long long total = static_cast<long long>(rows) * cols;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = idx / cols, c = idx % cols;
    dst[r * ldd + c] = ::gemm::detail::convert<To>(src[r * lds + c]);
  }
}

template <class From, class To>
Status convert_tile(const From* src, int lds, To* dst, int ldd, int rows, int cols, const ::gemm::detail::DeviceInfo& dev,
                    cudaStream_t stream) {
  const long long elems = static_cast<long long>(rows) * cols;
  if (elems == 0) return Status::Success;
  const long long blocks = ::gemm::detail::ceil_div(elems, 256) < 4096 ? ::gemm::detail::ceil_div(elems, 256) : 4096;
  return ::gemm::detail::launch_kernel<&convert_tile_kernel<From, To>>(blocks, 256, 0, stream, dev, src, lds, dst, ldd,
                                                                      rows, cols);
}

}  // namespace gemm::host::detail
