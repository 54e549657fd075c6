#pragma once
// C = beta * C, for calls where the product vanishes (k == 0 or alpha == 0).
// beta == 0 writes zeros without reading C.
#include "../args.cuh"
#include "../detail/launch.cuh"

namespace gemm::detail {

template <class T>
__global__ void scale_c_kernel(const GemmArgs<T> args) {
  const long long total = static_cast<long long>(args.m) * args.n;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = idx / args.n, col = idx % args.n;
    T* c = args.C + row * args.ldc + col;
    *c = args.beta != T(0) ? args.beta * *c : T(0);
  }
}

// C = beta * C on the host's stream; nothing to do when beta == 1.
template <class T>
Status scale_c(const GemmArgs<T>& args, const DeviceInfo& dev, cudaStream_t stream) {
  if (args.beta == T(1)) return Status::Success;
  const long long elems = static_cast<long long>(args.m) * args.n;
  const long long blocks = ceil_div(elems, 256) < 65536 ? ceil_div(elems, 256) : 65536;
  return launch_kernel<&scale_c_kernel<T>>(blocks, 256, 0, stream, dev, args);
}

}  // namespace gemm::detail
