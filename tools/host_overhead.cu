// Host time per call: what gemm::gemm (and cublasGemmEx, for comparison) costs the calling thread,
// apart from the GPU's time. The stream is first held by a kernel that spins for 50 ms, so the
// calls timed here only queue behind it and never wait for the GPU; 200 calls per round, median of
// 9 rounds. (The launch queue holds about a thousand operations: a call of several, such as a
// staged copy, a memset and the GEMM, would fill it at 400 calls, and the host would then wait for
// the spinning kernel, about 125 us a call here.)
//
// Usage: gemm_host_overhead                       square float and bf16 calls beside cublasGemmEx
//        gemm_host_overhead --shapes [L/]MxNxK ...   bf16 calls of these shapes (L: NT, TN or TT, A and B
//                                                 row-major as stored; none: NN): besides host time, the
//                                                 kernels each call launches and the time per call of
//                                                 calls back to back (CUDA events, median of 9
//                                                 batches), ours and cuBLAS's: where a small call's
//                                                 time goes
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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
  constexpr int kCalls = 200;
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

// Seconds per call of calls back to back on the stream (the GPU's time per call, or the host's where
// the host is slower): median of 9 batches of `calls`, after a warm-up batch.
template <class F>
double us_per_call_back_to_back(cudaStream_t stream, F call, int calls) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<double> batches;
  for (int r = 0; r < 10; ++r) {
    CHECK_CUDA(cudaEventRecord(start, stream));
    for (int i = 0; i < calls; ++i) call();
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    if (r > 0) batches.push_back(1e3 * ms / calls);
  }
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  std::sort(batches.begin(), batches.end());
  return batches[batches.size() / 2];
}

// One bf16 shape: "[NT|TN|TT/]MxNxK", A and B row-major as stored (the benchmark's naming).
void shape_row(cublasHandle_t handle, cudaStream_t stream, const std::string& spec) {
  using T = __nv_bfloat16;
  gemm::Op op_a = gemm::Op::N, op_b = gemm::Op::N;
  std::string dims = spec;
  if (spec.size() > 3 && spec[2] == '/') {
    op_a = spec[0] == 'T' ? gemm::Op::T : gemm::Op::N;
    op_b = spec[1] == 'T' ? gemm::Op::T : gemm::Op::N;
    dims = spec.substr(3);
  }
  int m = 0, n = 0, k = 0;
  if (std::sscanf(dims.c_str(), "%dx%dx%d", &m, &n, &k) != 3 || m < 1 || n < 1 || k < 1) {
    std::fprintf(stderr, "bad shape %s\n", spec.c_str());
    std::exit(2);
  }
  const int lda = op_a == gemm::Op::N ? k : m, ldb = op_b == gemm::Op::N ? n : k;
  T* A = device_random<T>(static_cast<size_t>(m) * k);
  T* B = device_random<T>(static_cast<size_t>(k) * n);
  T* C = device_random<T>(static_cast<size_t>(m) * n);
  const float one = 1.0f, zero = 0.0f;
  const auto ours = [&] {
    if (gemm::gemm<T>(op_a, op_b, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, n, stream) != gemm::Status::Success)
      std::exit(1);
  };
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: cuBLAS gets B first.
  const auto theirs = [&] {
    if (cublasGemmEx(handle, op_b == gemm::Op::N ? CUBLAS_OP_N : CUBLAS_OP_T,
                     op_a == gemm::Op::N ? CUBLAS_OP_N : CUBLAS_OP_T, n, m, k, &one, B, CUDA_R_16BF, ldb, A,
                     CUDA_R_16BF, lda, &zero, C, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
      std::exit(1);
  };
  const gemm::Plan plan = gemm::plan<T>(op_a, op_b, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, n);
  const unsigned long long before = gemm::kernel_launches();
  ours();
  const unsigned long long launches = gemm::kernel_launches() - before;
  CHECK_CUDA(cudaStreamSynchronize(stream));
  const double host_ours = host_us_per_call(stream, ours), host_theirs = host_us_per_call(stream, theirs);
  const double gpu_ours = us_per_call_back_to_back(stream, ours, 200);
  const double gpu_theirs = us_per_call_back_to_back(stream, theirs, 200);
  std::printf("| %s | %llu | %.2f | %.2f | %.2f | %.2f | %.3f | %s |\n", spec.c_str(), launches, host_ours,
              host_theirs, gpu_ours, gpu_theirs, gpu_theirs / gpu_ours, plan.describe().c_str());
  CHECK_CUDA(cudaFree(A));
  CHECK_CUDA(cudaFree(B));
  CHECK_CUDA(cudaFree(C));
}

}  // namespace

int main(int argc, char** argv) {
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS || cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS)
    return 1;
  std::printf("Host time per call on %s (us; the GPU held by a spinning kernel, 200 calls per round, median of 9)\n\n",
              prop.name);
  const double floor = host_us_per_call(stream, [&] { empty_kernel<<<1, 32, 0, stream>>>(); });
  std::printf("The floor: one launch of an empty kernel (<<<1, 32>>>) costs %.2f us.\n\n", floor);
  if (argc > 1 && std::strcmp(argv[1], "--shapes") == 0) {
    std::printf("bf16, C row-major with ldc = n, beta = 0. Host: us of the calling thread per call with the GPU "
                "busy. Back to back: us per call of 200 calls queued together.\n\n");
    std::printf("| shape | launches | host, ours | host, cuBLAS | back to back, ours | back to back, cuBLAS | "
                "ratio | plan |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (int i = 2; i < argc; ++i) shape_row(handle, stream, argv[i]);
  } else {
    std::printf("| type | shape | gemm::gemm | cublasGemmEx | gemm::plan | family |\n|---|---|---:|---:|---:|---|\n");
    for (int s : {128, 512, 4096}) {
      row<float>(handle, stream, "float", s, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
      row<__nv_bfloat16>(handle, stream, "bf16", s, CUDA_R_16BF, CUBLAS_COMPUTE_32F);
    }
  }
  cublasDestroy(handle);
  CHECK_CUDA(cudaStreamDestroy(stream));
  return 0;
}
