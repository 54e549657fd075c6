#pragma once
// Small helpers shared by the example and the autotuner: checked CUDA calls, random fills, event timing.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                                          \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace support {

// Fills with a hash of the index: uniform in [-1, 1), never all zeros.
template <class T>
__global__ void fill_kernel(T* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 16, x *= 0x7feb352d, x ^= x >> 15, x *= 0x846ca68b, x ^= x >> 16;
    p[i] = static_cast<T>(x) / static_cast<T>(2147483648.0) - T(1);
  }
}

template <class T>
void fill_random(T* p, size_t n, unsigned seed) {
  fill_kernel<<<1024, 256>>>(p, n, seed);
  CHECK_CUDA(cudaGetLastError());
}

// Median of reps event-timed runs of run(), after 3 warm-up runs, in milliseconds.
template <class Run>
double median_ms(Run run, int reps) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) run();
  std::vector<float> ms(reps);
  for (int i = 0; i < reps; ++i) {
    CHECK_CUDA(cudaEventRecord(start));
    run();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK_CUDA(cudaEventElapsedTime(&ms[i], start, stop));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[reps / 2];
}

}  // namespace support
