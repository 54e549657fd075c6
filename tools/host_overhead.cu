// Host time per call: what gemm::gemm (and cublasGemmEx, for comparison) costs the calling thread,
// apart from the GPU's time. The stream is first held by a kernel that spins for 50 ms, so the
// calls timed here only queue behind it and never wait for the GPU; 400 calls per round (well
// under the launch queue's depth), median of 9 rounds. Usage: gemm_host_overhead
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gemm/gemm.cuh>
#include "../examples/support.cuh"  // CHECK_CUDA

namespace {

__global__ void empty_kernel() {}

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

template <class F>
double host_us_per_call(cudaStream_t stream, F call) {
  constexpr int kCalls = 400;
  std::vector<double> rounds;
  int clock_khz = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  for (int r = 0; r < 10; ++r) {
    spin<<<1, 1, 0, stream>>>(50LL * clock_khz);  // 50 ms at the base clock
    CHECK_CUDA(cudaGetLastError());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) call();
    const auto t1 = std::chrono::steady_clock::now();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    if (r > 0) rounds.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kCalls);  // r 0: warm-up
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

template <class T>
T* device_random(size_t n) {
  std::vector<T> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = static_cast<T>(static_cast<float>(i % 17) / 17.0f - 0.5f);
  T* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, n * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(d, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
void row(cublasHandle_t handle, cudaStream_t stream, const char* type, int s, cudaDataType dt,
         cublasComputeType_t compute) {
  using Math = std::conditional_t<std::is_same_v<T, float>, float, T>;
  const size_t n = static_cast<size_t>(s) * s;
  T *A = device_random<T>(n), *B = device_random<T>(n), *C = device_random<T>(n);
  const float one = 1.0f, zero = 0.0f;
  const gemm::Plan plan = gemm::plan<Math>(s, s, s, 1.0f, A, s, B, s, 0.0f, C, s);
  const double ours = host_us_per_call(stream, [&] {
    if (gemm::gemm<Math>(s, s, s, 1.0f, A, s, B, s, 0.0f, C, s, stream) != gemm::Status::Success) std::exit(1);
  });
  const double plan_us = host_us_per_call(stream, [&] { (void)gemm::plan<Math>(s, s, s, 1.0f, A, s, B, s, 0.0f, C, s); });
  const double theirs = host_us_per_call(stream, [&] {
    if (cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, s, s, s, &one, B, dt, s, A, dt, s, &zero, C, dt, s, compute,
                     CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
      std::exit(1);
  });
  std::printf("| %s | %dx%dx%d | %.2f | %.2f | %.2f | %s |\n", type, s, s, s, ours, theirs, plan_us,
              plan.composition.substr(0, plan.composition.find('<')).c_str());
  CHECK_CUDA(cudaFree(A));
  CHECK_CUDA(cudaFree(B));
  CHECK_CUDA(cudaFree(C));
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS || cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS)
    return 1;
  std::printf("Host time per call on %s (us; the GPU held by a spinning kernel, 400 calls per round, median of 9)\n\n",
              prop.name);
  const double floor = host_us_per_call(stream, [&] { empty_kernel<<<1, 32, 0, stream>>>(); });
  std::printf("The floor: one launch of an empty kernel (<<<1, 32>>>) costs %.2f us.\n\n", floor);
  std::printf("| type | shape | gemm::gemm | cublasGemmEx | gemm::plan | family |\n|---|---|---:|---:|---:|---|\n");
  for (int s : {128, 512, 4096}) {
    row<float>(handle, stream, "float", s, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
    row<__nv_bfloat16>(handle, stream, "bf16", s, CUDA_R_16BF, CUBLAS_COMPUTE_32F);
  }
  cublasDestroy(handle);
  CHECK_CUDA(cudaStreamDestroy(stream));
  return 0;
}
