#pragma once
// C = beta * C, for calls where the product vanishes (k == 0 or alpha == 0).
// beta == 0 writes zeros without reading C.
#include "../args.cuh"

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

}  // namespace gemm::detail
