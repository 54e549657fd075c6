// Accuracy of FP8 GEMM against an fp64 reference, beside cuBLASLt on the same data: ours (Tuned) and
// cuBLASLt in each scale mode (per tensor, per row of A and column of C, 1 x 128 blocks of A with
// 128 x 128 blocks of B); ours with the partial sums promoted every 256 and 512 k and never
// (gemm::Scales::promote_every, tensor and row scales), and cuBLASLt with fast accumulation
// (CUBLASLT_MATMUL_DESC_FAST_ACCUM: the tensor cores' partial sums never promoted to fp32).
//
// m = n = 512, k = 1024, 7168 and 16384; A (m x k, row-major) and B (n x k, a weight) drawn in fp32,
// either uniform in (-1, 1) ("uniform") or u 2^e with e uniform in [-8, 8) ("wide": 16 binades), then
// quantized to e4m3 as a quantizer does, per the mode: scale = amax / 448 over each tensor, row (of A
// and of the stored B), 1 x 128 block of A or 128 x 128 block of B. C is fp32 on both sides, so that
// what the table shows is the GEMM's own error and not bf16's rounding of C (2^-9, which would hide it).
//
// Each column is ||C - C_ref||_F / ||C_ref||_F against the fp64 product of the dequantized inputs
// (each e4m3 value times its scale: exactly what both libraries are asked to compute), with the largest
// element-wise error relative to sum_p |a_ip b_jp| in parentheses. "quantization" is the same norm of
// C_ref against the fp64 product of the unquantized inputs: what the mode's rounding of the inputs
// costs, for scale. A cell "refused" is a mode cuBLASLt has no algorithm for (the notes say why).
//   gemm_fp8_accuracy [--out table.md]
// Exits non-zero on CUDA errors (or without an sm_90 GPU) only.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <gemm/reference.hpp>
#include <gemm/gemm.cuh>
#include "../benchmark/cublaslt_fp8.cuh"
#include "../examples/support.cuh"
#include "error_measure.hpp"

namespace {

using fp8 = __nv_fp8_e4m3;
constexpr double kE4m3Max = 448.0;

using gemm_tools::Errors;
using gemm_tools::measure;
using gemm_tools::sci;

// C = A B^T and, when mag is given, |A| |B|^T, in fp64 (A m x k, B n x k, both row-major), rows of C
// split over the host's threads.
void reference(int m, int n, int k, const std::vector<double>& a, const std::vector<double>& b, std::vector<double>* c,
               std::vector<double>* mag) {
  c->assign(static_cast<size_t>(m) * n, 0.0);
  if (mag) mag->assign(c->size(), 0.0);
  auto rows = [&](long long begin, long long end) {
    for (long long i = begin; i < end; ++i)
      for (int j = 0; j < n; ++j) {
        const double* x = &a[static_cast<size_t>(i) * k];
        const double* y = &b[static_cast<size_t>(j) * k];
        double s = 0, t = 0;
        for (int p = 0; p < k; ++p) {
          s += x[p] * y[p];
          if (mag) t += std::fabs(x[p] * y[p]);
        }
        (*c)[static_cast<size_t>(i) * n + j] = s;
        if (mag) (*mag)[static_cast<size_t>(i) * n + j] = t;
      }
  };
  gemm::reference::parallel_rows(m, rows);
}

// One operand quantized to e4m3: its values, its scales in gemm::Scales' layout, and the dequantized
// values (e4m3 value times its scale, in fp64: exact).
struct Quantized {
  std::vector<fp8> q;
  std::vector<float> scales;
  std::vector<double> deq;
};

// `rows` x k values, row-major; group(r, p) is the index of the scale of element (r, p), in [0, groups).
template <class Group>
Quantized quantize(const std::vector<float>& x, int rows, int k, long long groups, Group group) {
  Quantized out;
  std::vector<float> amax(static_cast<size_t>(groups), 0.0f);
  for (int r = 0; r < rows; ++r)
    for (int p = 0; p < k; ++p) {
      float& a = amax[static_cast<size_t>(group(r, p))];
      a = std::max(a, std::fabs(x[static_cast<size_t>(r) * k + p]));
    }
  out.scales.resize(amax.size());
  for (size_t g = 0; g < amax.size(); ++g)
    out.scales[g] = amax[g] > 0 ? static_cast<float>(amax[g] / kE4m3Max) : 1.0f;  // an all-zero group keeps 1
  out.q.resize(x.size());
  out.deq.resize(x.size());
  for (int r = 0; r < rows; ++r)
    for (int p = 0; p < k; ++p) {
      const size_t i = static_cast<size_t>(r) * k + p;
      const float s = out.scales[static_cast<size_t>(group(r, p))];
      out.q[i] = fp8(x[i] / s);  // rounds to nearest, saturating to 448
      out.deq[i] = static_cast<double>(static_cast<float>(out.q[i])) * s;
    }
  return out;
}

// A (m x k) and B (n x k) quantized per the mode, the scale indices of scales.cuh.
void quantize_pair(gemm::ScaleMode mode, const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                   Quantized* qa, Quantized* qb) {
  const long long kb = gemm::Scales::k_blocks(k), nb = (n + gemm::kScaleBlock - 1) / gemm::kScaleBlock;
  const int blk = gemm::kScaleBlock;
  switch (mode) {
    case gemm::ScaleMode::Tensor:
      *qa = quantize(a, m, k, 1, [](int, int) { return 0LL; });
      *qb = quantize(b, n, k, 1, [](int, int) { return 0LL; });
      break;
    case gemm::ScaleMode::Rowwise:
      *qa = quantize(a, m, k, m, [](int r, int) { return static_cast<long long>(r); });
      *qb = quantize(b, n, k, n, [](int r, int) { return static_cast<long long>(r); });
      break;
    case gemm::ScaleMode::Block:
      *qa = quantize(a, m, k, kb * m, [&](int r, int p) { return static_cast<long long>(p / blk) * m + r; });
      *qb = quantize(b, n, k, nb * kb, [&](int r, int p) { return static_cast<long long>(r / blk) * kb + p / blk; });
      break;
  }
}

// A cell of the table: "normwise (elementwise)", or why there is none.
struct Cell {
  Errors e;
  std::string text;
  bool ok = false;
};
Cell cell(const Errors& e) { return {e, sci(e.normwise) + " (" + sci(e.elementwise) + ")", true}; }

void check_gemm_cuda(const char* what) {
  if (gemm::last_cuda_error() == cudaSuccess) return;
  std::fprintf(stderr, "%s: CUDA error %s\n", what, cudaGetErrorString(gemm::last_cuda_error()));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const char* out_path = nullptr;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--out" && i + 1 < argc) out_path = argv[++i];
  int dev = 0;
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDevice(&dev));
  CHECK_CUDA(cudaGetDeviceProperties(&prop, dev));
  if (prop.major != 9 || prop.minor != 0) {
    std::fprintf(stderr, "gemm_fp8_accuracy: needs an sm_90 GPU (FP8 wgmma); this is %s, compute capability %d.%d\n",
                 prop.name, prop.major, prop.minor);
    return 1;
  }

  const int m = 512, n = 512;
  const int ks[] = {1024, 7168, 16384};
  const gemm::ScaleMode modes[] = {gemm::ScaleMode::Tensor, gemm::ScaleMode::Rowwise, gemm::ScaleMode::Block};
  const char* kinds[] = {"uniform", "wide"};
  std::mt19937_64 rng(20261207);
  gemm_bench::CublasLtFp8<float> lt, lt_fast;
  std::vector<std::string> notes;
  auto note = [&](const std::string& s) {
    if (std::find(notes.begin(), notes.end(), s) == notes.end()) notes.push_back(s);
  };

  std::string table =
      "| inputs | k | scales | quantization | ours (Tuned) | cuBLASLt | ours / cuBLASLt | ours, promoted every 256 k | "
      "every 512 k | never | cuBLASLt fast accumulation |\n"
      "|---|---:|---|---|---|---|---:|---|---|---|---|\n";
  const int k_max = *std::max_element(std::begin(ks), std::end(ks));
  fp8 *dA = nullptr, *dB = nullptr;
  float *dC = nullptr, *dSa = nullptr, *dSb = nullptr;
  CHECK_CUDA(cudaMalloc(&dA, static_cast<size_t>(m) * k_max));
  CHECK_CUDA(cudaMalloc(&dB, static_cast<size_t>(n) * k_max));
  CHECK_CUDA(cudaMalloc(&dC, static_cast<size_t>(m) * n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dSa, gemm::Scales::needed_a(gemm::ScaleMode::Block, m, k_max) * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dSb, gemm::Scales::needed_b(gemm::ScaleMode::Block, n, k_max) * sizeof(float)));
  std::vector<float> c(static_cast<size_t>(m) * n);

  for (int kind = 0; kind < 2; ++kind)
    for (int k : ks) {
      std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(n) * k);
      std::uniform_real_distribution<double> u(-1, 1), e(-8, 8);
      auto draw = [&] {
        const double x = u(rng);
        return static_cast<float>(kind == 0 ? x : std::ldexp(x, static_cast<int>(std::floor(e(rng)))));
      };
      for (auto& x : a) x = draw();
      for (auto& x : b) x = draw();
      std::vector<double> exact;
      reference(m, n, k, std::vector<double>(a.begin(), a.end()), std::vector<double>(b.begin(), b.end()), &exact,
                nullptr);

      for (gemm::ScaleMode mode : modes) {
        Quantized qa, qb;
        quantize_pair(mode, a, b, m, n, k, &qa, &qb);
        std::vector<double> ref, mag;
        reference(m, n, k, qa.deq, qb.deq, &ref, &mag);
        double d2 = 0, r2 = 0;
        for (size_t i = 0; i < ref.size(); ++i) d2 += (ref[i] - exact[i]) * (ref[i] - exact[i]), r2 += exact[i] * exact[i];

        CHECK_CUDA(cudaMemcpy(dA, qa.q.data(), qa.q.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dB, qb.q.data(), qb.q.size(), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dSa, qa.scales.data(), qa.scales.size() * sizeof(float), cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dSb, qb.scales.data(), qb.scales.size() * sizeof(float), cudaMemcpyHostToDevice));
        const long long na = static_cast<long long>(qa.scales.size()), nb = static_cast<long long>(qb.scales.size());
        const gemm::Scales scales = mode == gemm::ScaleMode::Tensor    ? gemm::Scales::tensor(dSa, dSb)
                                    : mode == gemm::ScaleMode::Rowwise ? gemm::Scales::rowwise(dSa, na, dSb, nb)
                                                                       : gemm::Scales::block(dSa, na, dSb, nb);
        auto fetch = [&] {
          CHECK_CUDA(cudaDeviceSynchronize());
          CHECK_CUDA(cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
          return cell(measure(c, ref, mag));
        };

        // C starts as NaN on every side, so that an element left unwritten shows as an infinite error.
        // promote_k: Scales::promote_every (block scales take 128 only: "-" in the other columns).
        auto run_ours = [&](int promote_k) {
          Cell r;
          r.text = "-";
          if (mode == gemm::ScaleMode::Block && promote_k != gemm::kScaleBlock) return r;
          CHECK_CUDA(cudaMemset(dC, 0xff, c.size() * sizeof(float)));
          const gemm::Status st = gemm::gemm<fp8, gemm::preset::Tuned>(
              gemm::Op::N, gemm::Op::T, m, n, k, 1.0f, dA, k, dB, k, 0.0f, dC, n, scales.promote_every(promote_k));
          check_gemm_cuda("gemm::gemm");
          if (st == gemm::Status::Success) r = fetch();
          else r.text = std::string("error: ") + gemm::to_string(st);
          return r;
        };
        const Cell ours = run_ours(128), every256 = run_ours(256), every512 = run_ours(512), never = run_ours(0);

        auto theirs = [&](gemm_bench::CublasLtFp8<float>& h, bool fast) {
          Cell r;
          const gemm_bench::LtStatus ps = h.prepare(m, n, k, k, k, n, scales, fast);
          if (ps == gemm_bench::LtStatus::CudaError) {
            std::fprintf(stderr, "cuBLASLt: %s\n", h.message().c_str());
            std::exit(1);
          }
          if (ps != gemm_bench::LtStatus::Success) {
            note(h.message());
            r.text = "refused";
            return r;
          }
          CHECK_CUDA(cudaMemset(dC, 0xff, c.size() * sizeof(float)));
          if (h.run(dA, dB, dC) != gemm_bench::LtStatus::Success) {
            CHECK_CUDA(cudaDeviceSynchronize());  // a CUDA error behind the refusal ends the run
            note(h.message());
            r.text = "failed";
            return r;
          }
          return fetch();
        };
        const Cell promoted = theirs(lt, false), fast = theirs(lt_fast, true);

        table += std::string("| ") + kinds[kind] + " | " + std::to_string(k) + " | " + gemm::to_string(mode) + " | " +
                 sci(std::sqrt(d2 / r2)) + " | " + ours.text + " | " + promoted.text + " | ";
        char ratio[32] = "-";
        if (ours.ok && promoted.ok && promoted.e.normwise > 0)
          std::snprintf(ratio, sizeof ratio, "%.2f", ours.e.normwise / promoted.e.normwise);
        table += std::string(ratio) + " | " + every256.text + " | " + every512.text + " | " + never.text + " | " +
                 fast.text + " |\n";
      }
    }
  cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dSa), cudaFree(dSb);

  std::string text = table;
  if (!notes.empty()) {
    text += "\n";
    for (const std::string& s : notes) text += "- cuBLASLt: " + s + "\n";
  }
  std::printf("FP8 (e4m3) GEMM on %s, m = n = %d, C in fp32: normwise error against the fp64 product of the "
              "dequantized inputs (largest element-wise error relative to sum |a b|); quantization: the fp64 "
              "product of the dequantized inputs against that of the unquantized ones\n\n%s\n",
              prop.name, m, text.c_str());
  if (out_path) {
    if (FILE* f = std::fopen(out_path, "w")) {
      std::fputs(text.c_str(), f);
      std::fclose(f);
    } else {
      std::fprintf(stderr, "gemm_fp8_accuracy: cannot write %s\n", out_path);
    }
  }
  return 0;
}
