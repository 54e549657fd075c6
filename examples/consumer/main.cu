// Smallest possible downstream user of gemm: find_package(gemm) + gemm::gemm.
// Runs one small SGEMM with the Coalesced preset when a CUDA device exists.
#include <gemm/gemm.cuh>

#include <cstdio>
#include <cuda_runtime.h>

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 0;
  }

  const int m = 64, n = 64, k = 64;
  float *A = nullptr, *B = nullptr, *C = nullptr;
  if (cudaMalloc(&A, sizeof(float) * m * k) != cudaSuccess ||
      cudaMalloc(&B, sizeof(float) * k * n) != cudaSuccess ||
      cudaMalloc(&C, sizeof(float) * m * n) != cudaSuccess) {
    std::printf("cudaMalloc failed\n");
    return 1;
  }
  cudaMemset(A, 0, sizeof(float) * m * k);
  cudaMemset(B, 0, sizeof(float) * k * n);

  // Row-major C (m x n) = 1 * A (m x k) * B (k x n) + 0 * C.
  gemm::Status s = gemm::gemm<float, gemm::preset::Coalesced>(m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
  if (s == gemm::Status::Success && cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  std::printf("gemm: %s\n", gemm::to_string(s));

  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  return s == gemm::Status::Success ? 0 : 1;
}
