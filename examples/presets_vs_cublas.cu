// Runs every preset beside cuBLAS on the same random matrices and prints TFLOP/s and whether the
// result matches cuBLAS. Usage: presets_vs_cublas [size=4096] [type=float|double]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gemm/gemm.cuh>
#include "support.cuh"

#define CHECK_CUBLAS(call)                                                              \
  do {                                                                                  \
    cublasStatus_t s_ = (call);                                                         \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, s_); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

template <class T>
double max_rel_diff(const std::vector<T>& got, const std::vector<T>& want) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    if (!(d == d)) return INFINITY;  // NaN
    diff = std::max(diff, d);
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  return diff / scale;
}

template <class T>
struct Bench {
  int n;
  T *A, *B, *C;
  std::vector<T> reference;
  double cublas_tflops = 0;
  int failures = 0;

  double tflops(double ms) const { return 2.0 * n * n * double(n) / (ms * 1e-3) / 1e12; }

  void run_cublas(cublasHandle_t handle) {
    const T one = 1, zero = 0;
    auto call = [&] {
      // Row-major C = A*B is column-major C^T = B^T * A^T.
      if constexpr (sizeof(T) == 4)
        CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n));
      else
        CHECK_CUBLAS(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n));
    };
    const double ms = support::median_ms(call, 10);
    reference.resize(size_t(n) * n);
    CHECK_CUDA(cudaMemcpy(reference.data(), C, reference.size() * sizeof(T), cudaMemcpyDeviceToHost));
    cublas_tflops = tflops(ms);
    std::printf("| %-16s | %8.2f | %9.1f%% | %-26s |\n", "cuBLAS", cublas_tflops, 100.0, "baseline");
  }

  template <class Policy>
  void run_preset() {
    const double flops = 2.0 * n * n * double(n);
    if (std::string(Policy::name()) == "Naive" && flops > 2.0 * 2048 * 2048 * 2048) {
      std::printf("| %-16s | %8s | %10s | %-26s |\n", Policy::name(), "-", "-", "skipped: too slow at this size");
      return;
    }
    CHECK_CUDA(cudaMemset(C, 0xff, size_t(n) * n * sizeof(T)));  // NaN poison: unwritten elements fail
    auto call = [&] {
      const gemm::Status s = gemm::gemm<T, Policy>(n, n, n, T(1), A, n, B, n, T(0), C, n);
      if (s != gemm::Status::Success) {
        std::fprintf(stderr, "%s: %s\n", Policy::name(), gemm::to_string(s));
        std::exit(1);
      }
    };
    call();
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<T> got(size_t(n) * n);
    CHECK_CUDA(cudaMemcpy(got.data(), C, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
    const double err = max_rel_diff(got, reference);
    const bool ok = err < (sizeof(T) == 4 ? 1e-4 : 1e-12);
    failures += !ok;
    const double t = tflops(support::median_ms(call, sizeof(T) == 4 ? 10 : 5));
    char verdict[64];
    std::snprintf(verdict, sizeof verdict, "%s (max rel diff %.1e)", ok ? "correct" : "WRONG", err);
    std::printf("| %-16s | %8.2f | %9.1f%% | %-26s |\n", Policy::name(), t, 100.0 * t / cublas_tflops, verdict);
  }

  template <class... P>
  void run_all(gemm::TypeList<P...>) {
    (run_preset<P>(), ...);
  }
};

template <class T>
int run(int n) {
  Bench<T> b{n};
  const size_t elems = size_t(n) * n;
  CHECK_CUDA(cudaMalloc(&b.A, elems * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&b.B, elems * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&b.C, elems * sizeof(T)));
  support::fill_random(b.A, elems, 1u);
  support::fill_random(b.B, elems, 2u);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));  // strict fp32: no TF32
  std::printf("| %-16s | %8s | %10s | %-26s |\n|---|---:|---:|---|\n", "kernel", "TFLOP/s", "of cuBLAS", "result");
  b.run_cublas(handle);
  b.run_all(gemm::preset::AllServing<T>{});  // the presets that compute T (the CUDA-core ladder and Tuned)
  cublasDestroy(handle);
  cudaFree(b.A), cudaFree(b.B), cudaFree(b.C);
  return b.failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const std::string type = argc > 2 ? argv[2] : "float";
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    std::printf("no CUDA device: nothing to run\n");
    return 1;
  }
  std::printf("%s (sm_%d%d, %d SMs): C = A * B, %d x %d x %d, %s, random inputs, median of event-timed runs\n\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, n, n, n, type.c_str());
  return type == "double" ? run<double>(n) : run<float>(n);
}
