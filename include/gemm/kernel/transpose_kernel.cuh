#pragma once
// dst (cols x rows, leading dimension ld_dst) = src (rows x cols, leading dimension ld_src)^T,
// through 32 x 33 shared tiles so that both the reads and the writes are coalesced.
// Used to give the tensor cores a k-contiguous copy of an operand they cannot read otherwise
// (TF32 wgmma reads only K-major operands).
#include "../detail/launch.cuh"

namespace gemm::detail {

template <class T>
__global__ void __launch_bounds__(256) transpose_kernel(const T* src, int ld_src, int rows, int cols, T* dst,
                                                         int ld_dst) {
  __shared__ T tile[32][33];
  const int tiles_c = (cols + 31) / 32;
  const int r0 = static_cast<int>(blockIdx.x / tiles_c) * 32, c0 = static_cast<int>(blockIdx.x % tiles_c) * 32;
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;  // 32 x 8 threads
#pragma unroll
  for (int i = 0; i < 32; i += 8) {
    const int r = r0 + ty + i, c = c0 + tx;
    if (r < rows && c < cols) tile[ty + i][tx] = src[static_cast<long long>(r) * ld_src + c];
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < 32; i += 8) {
    const int c = c0 + ty + i, r = r0 + tx;
    if (r < rows && c < cols) dst[static_cast<long long>(c) * ld_dst + r] = tile[tx][ty + i];
  }
}

template <class T>
Status transpose(const T* src, int ld_src, int rows, int cols, T* dst, int ld_dst, const DeviceInfo& dev,
                 cudaStream_t stream) {
  const long long blocks = ceil_div(rows, 32) * ceil_div(cols, 32);
  return launch_kernel<&transpose_kernel<T>>(blocks, 256, 0, stream, dev, src, ld_src, rows, cols, dst, ld_dst);
}

}  // namespace gemm::detail
