// Accuracy of the fp32-input modes against an fp64 reference, beside cuBLAS on the same data:
// strict fp32 (ours and cuBLAS SGEMM in pedantic math), TF32 (ours and cuBLAS's fast-TF32 compute)
// and 3xTF32 (ours; cuBLAS has no such mode on Hopper). For k from 64 to 16384 (m = n = 256) and two
// input distributions: uniform in (-1, 1), and a wide exponent range (sign * 2^e * (1 + u), e uniform
// in [-20, 20]); and, reported apart, A holding fp32 subnormals (2^-130 U(-1,1)). Prints a markdown table of the normwise error ||C - ref||_F / ||ref||_F and the
// largest element-wise error relative to sum_p |a_ip b_pj|.
//   gemm_accuracy [--out table.md]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gemm/gemm.cuh>
#include <gemm/reference.hpp>
#include "../examples/support.cuh"
#include "error_measure.hpp"

namespace {

using gemm_tools::Errors;
using gemm_tools::measure;
using gemm_tools::sci;

}  // namespace

int main(int argc, char** argv) {
  const char* out_path = nullptr;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--out" && i + 1 < argc) out_path = argv[++i];
  cublasHandle_t strict, fast;
  if (cublasCreate(&strict) != CUBLAS_STATUS_SUCCESS || cublasCreate(&fast) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetMathMode(strict, CUBLAS_PEDANTIC_MATH);
  cublasSetMathMode(fast, CUBLAS_TF32_TENSOR_OP_MATH);
  const int m = 256, n = 256;
  std::mt19937_64 rng(20261122);
  std::string table =
      "| inputs | k | ours fp32 | cuBLAS SGEMM | ours TF32 | cuBLAS TF32 | ours 3xTF32 | 3xTF32 / SGEMM (ours, cuBLAS) |\n"
      "|---|---:|---|---|---|---|---|---|\n";
  bool ok = true;
  // Inputs: 0 uniform, 1 wide exponents, 2 A subnormal (2^-130 U(-1,1): fp32 subnormals, products
  // too) with B uniform. The third is reported, not held to the 2x bound: it says what the tensor
  // cores do with subnormals.
  const char* kInputs[3] = {"U(-1,1)", "2^[-20,20]", "A subnormal"};
  for (int dist = 0; dist < 3; ++dist)
    for (int k : {64, 256, 1024, 4096, 16384}) {
      if (dist == 2 && k != 64 && k != 1024) continue;
      const bool wide = dist == 1;
      std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n);
      std::uniform_real_distribution<double> u(-1, 1), e(-20, 20);
      auto draw = [&] {
        if (!wide) return static_cast<float>(u(rng));
        const double s = u(rng) < 0 ? -1 : 1;
        return static_cast<float>(s * std::ldexp(1 + std::fabs(u(rng)), static_cast<int>(std::floor(e(rng)))));
      };
      for (auto& x : a) x = dist == 2 ? static_cast<float>(std::ldexp(u(rng), -130)) : draw();
      for (auto& x : b) x = draw();
      std::vector<double> ref(static_cast<size_t>(m) * n), mag(ref.size());
      std::vector<double> aa(a.size()), ab(b.size());
      for (size_t i = 0; i < a.size(); ++i) aa[i] = std::fabs(a[i]);
      for (size_t i = 0; i < b.size(); ++i) ab[i] = std::fabs(b[i]);
      gemm::reference::gemm<float>(m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, nullptr, n, ref.data(), n);
      gemm::reference::gemm<double>(m, n, k, 1.0, aa.data(), k, ab.data(), n, 0.0, nullptr, n, mag.data(), n);
      float *dA, *dB, *dC;
      CHECK_CUDA(cudaMalloc(&dA, a.size() * 4));
      CHECK_CUDA(cudaMalloc(&dB, b.size() * 4));
      CHECK_CUDA(cudaMalloc(&dC, ref.size() * 4));
      CHECK_CUDA(cudaMemcpy(dA, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(dB, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
      std::vector<float> c(ref.size());
      auto fetch = [&] {
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(c.data(), dC, c.size() * 4, cudaMemcpyDeviceToHost));
        return measure(c, ref, mag);
      };
      const float one = 1, zero = 0;
      auto cublas = [&](cublasHandle_t h) {
        // Row-major C = A B is column-major C^T = B^T A^T.
        if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, dB, n, dA, k, &zero, dC, n) != CUBLAS_STATUS_SUCCESS)
          std::exit(1);
        return fetch();
      };
      auto ours = [&](auto tag) {
        using T = decltype(tag);
        if (gemm::gemm<T>(m, n, k, 1.0f, dA, k, dB, n, 0.0f, dC, n) != gemm::Status::Success) std::exit(1);
        return fetch();
      };
      const Errors f32 = ours(float{}), cb = cublas(strict), t32 = ours(gemm::tf32{}), ct = cublas(fast),
                   x3 = ours(gemm::tf32x3{});
      table += std::string("| ") + kInputs[dist] + " | " + std::to_string(k);
      for (const Errors& r : {f32, cb, t32, ct, x3}) table += " | " + sci(r.normwise) + " (" + sci(r.elementwise) + ")";
      char ratio[64];
      std::snprintf(ratio, sizeof ratio, " | %.2f, %.2f |\n", x3.normwise / f32.normwise, x3.normwise / cb.normwise);
      table += ratio;
      if (dist < 2) ok = ok && x3.normwise <= 2 * std::max(f32.normwise, cb.normwise);
      cudaFree(dA), cudaFree(dB), cudaFree(dC);
    }
  std::printf("Normwise error (largest element-wise error relative to sum |a b|), m = n = 256:\n\n%s\n", table.c_str());
  std::printf("3xTF32 within 2x of strict SGEMM everywhere: %s\n", ok ? "yes" : "NO");
  if (out_path) {
    if (FILE* f = std::fopen(out_path, "w")) {
      std::fputs(table.c_str(), f);
      std::fclose(f);
    }
  }
  return ok ? 0 : 3;
}
