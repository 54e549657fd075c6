// The whole-flow table: 1024 x 1024 x 1024 fp32, host to host, then gemm::host's rows
// (host_flow.cu: the same flow with the copies overlapped, 8192^3 flows, PCIe rates).
//
// For cuBLAS (strict fp32) and every preset that serves float (row-major A, B
// and C): the GPU kernel alone (CUDA events), and the
// whole flow -- copy A and B host->device, multiply, copy C back -- timed with
// a host clock between two cudaDeviceSynchronize() calls, once with pageable
// and once with pinned host buffers (device buffers are allocated once,
// beforehand). Next to them, the single-threaded CPU reference
// (gemm::reference::gemm, fp64 accumulation), run once, against which every
// GPU result is checked.
#include "bench_common.cuh"

#include <gemm/reference.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace gemm_bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Row {
  std::string impl;
  std::string describe;
  double kernel_ms = std::nan("");
  double pageable_ms = std::nan("");
  double pinned_ms = std::nan("");
  double rel_err = std::nan("");
  bool ok = false;
  std::string error;
};

// Largest |c - ref| / max |ref|; +inf if c has a NaN/Inf.
double rel_error(const float* c, const std::vector<double>& ref) {
  double max_diff = 0, max_ref = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double a = c[i];
    if (!std::isfinite(a)) return INFINITY;
    max_diff = std::max(max_diff, std::fabs(a - ref[i]));
    max_ref = std::max(max_ref, std::fabs(ref[i]));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

std::string num(double v, const char* f = "%.3f") { return std::isfinite(v) ? fmt(f, v) : "-"; }
std::string jnum(double v) { return std::isfinite(v) ? fmt("%.6g", v) : "null"; }

}  // namespace

int run_flow(const Options& opt) {
  const Shape s{1024, 1024, 1024};
  const int runs = std::max(1, opt.flow_runs);
  const std::size_t na = std::size_t(s.m) * s.k, nb = std::size_t(s.k) * s.n,
                    nc = std::size_t(s.m) * s.n;

  std::vector<Row> rows;
  double cpu_ms = std::nan("");
  double copies_pageable_ms = std::nan(""), copies_pinned_ms = std::nan("");
  std::string fatal;

  std::vector<float> hA(na), hB(nb), hC(nc);
  for (std::size_t i = 0; i < na; ++i) hA[i] = static_cast<float>(uniform_pm1(0xA11CE, i));
  for (std::size_t i = 0; i < nb; ++i) hB[i] = static_cast<float>(uniform_pm1(0xB0B, i));

  // CPU reference, single-threaded, once (beta = 0: C is not read).
  std::vector<double> ref(nc);
  std::printf("gemm_bench: whole-flow table %s fp32: CPU reference (1 thread)...\n",
              s.str().c_str());
  std::fflush(stdout);
  {
    const auto t0 = Clock::now();
    gemm::reference::gemm<float>(false, false, s.m, s.n, s.k, 1.0, hA.data(), s.k, hB.data(), s.n,
                                 0.0, nullptr, s.n, ref.data(), s.n, 1);
    cpu_ms = ms_since(t0);
  }

  float *pA = nullptr, *pB = nullptr, *pC = nullptr;
  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  try {
    GEMM_BENCH_CUDA(cudaMallocHost(&pA, na * sizeof(float)));
    GEMM_BENCH_CUDA(cudaMallocHost(&pB, nb * sizeof(float)));
    GEMM_BENCH_CUDA(cudaMallocHost(&pC, nc * sizeof(float)));
    std::memcpy(pA, hA.data(), na * sizeof(float));
    std::memcpy(pB, hB.data(), nb * sizeof(float));
    GEMM_BENCH_CUDA(cudaMalloc(&dA, na * sizeof(float)));
    GEMM_BENCH_CUDA(cudaMalloc(&dB, nb * sizeof(float)));
    GEMM_BENCH_CUDA(cudaMalloc(&dC, nc * sizeof(float)));
    GEMM_BENCH_CUDA(cudaEventCreate(&e0));
    GEMM_BENCH_CUDA(cudaEventCreate(&e1));

    // A multiply step: returns "" or an error.
    using Multiply = std::function<std::string()>;

    // One whole flow from the given host buffers; returns host milliseconds.
    auto flow_once = [&](const float* a, const float* b, float* c, const Multiply& mul,
                         std::string* err) {
      GEMM_BENCH_CUDA(cudaDeviceSynchronize());
      const auto t0 = Clock::now();
      GEMM_BENCH_CUDA(cudaMemcpy(dA, a, na * sizeof(float), cudaMemcpyHostToDevice));
      GEMM_BENCH_CUDA(cudaMemcpy(dB, b, nb * sizeof(float), cudaMemcpyHostToDevice));
      if (mul) *err = mul();
      GEMM_BENCH_CUDA(cudaMemcpy(c, dC, nc * sizeof(float), cudaMemcpyDeviceToHost));
      GEMM_BENCH_CUDA(cudaDeviceSynchronize());
      return ms_since(t0);
    };
    auto flow_median = [&](const float* a, const float* b, float* c, const Multiply& mul,
                           std::string* err) {
      std::vector<double> t;
      for (int i = 0; i < 2 && err->empty(); ++i) flow_once(a, b, c, mul, err);  // warm-up
      for (int i = 0; i < runs && err->empty(); ++i) t.push_back(flow_once(a, b, c, mul, err));
      return median(t);
    };

    // Copies alone: the floor of any whole flow.
    {
      std::string err;
      copies_pageable_ms = flow_median(hA.data(), hB.data(), hC.data(), nullptr, &err);
      copies_pinned_ms = flow_median(pA, pB, pC, nullptr, &err);
    }

    std::vector<std::pair<Row, Multiply>> impls;
    {
      Row r;
      r.impl = "cuBLAS";
      r.describe = cublas_label<Float>();
      impls.emplace_back(r, [&]() -> std::string {
        const cublasStatus_t st = cublas_gemm<Float>(Layout::NN, s, 1.f, dA, dB, 0.f, dC, 0);
        return st == CUBLAS_STATUS_SUCCESS ? ""
                                           : std::string("cuBLAS returned ") +
                                                 cublasGetStatusName(st);
      });
    }
    for (const Preset<Float>& p : presets<Float>()) {
      Row r;
      r.impl = p.name;
      r.describe = p.describe;
      const Preset<Float>* pp = &p;
      impls.emplace_back(r, [&, pp]() -> std::string {
        const gemm::Status st =
            pp->row_major(s.m, s.n, s.k, 1.f, dA, s.k, dB, s.n, 0.f, dC, s.n, 0);
        if (st == gemm::Status::Success) return "";
        std::string e = std::string("gemm::gemm failed: ") + gemm::to_string(st);
        if (gemm::last_cuda_error() != cudaSuccess)
          e += std::string(" [") + cudaGetErrorName(gemm::last_cuda_error()) + "]";
        return e;
      });
    }

    for (auto& [row, mul] : impls) {
      std::string err;
      try {
        // Kernel alone (inputs already on the device).
        GEMM_BENCH_CUDA(cudaMemcpy(dA, pA, na * sizeof(float), cudaMemcpyHostToDevice));
        GEMM_BENCH_CUDA(cudaMemcpy(dB, pB, nb * sizeof(float), cudaMemcpyHostToDevice));
        std::vector<double> kt;
        for (int i = 0; i < 2 + runs && err.empty(); ++i) {
          GEMM_BENCH_CUDA(cudaEventRecord(e0, 0));
          err = mul();
          GEMM_BENCH_CUDA(cudaEventRecord(e1, 0));
          GEMM_BENCH_CUDA(cudaEventSynchronize(e1));
          GEMM_BENCH_CUDA(cudaGetLastError());
          float ms = 0;
          GEMM_BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
          if (i >= 2) kt.push_back(ms);
        }
        if (err.empty()) row.kernel_ms = median(kt);

        // Whole flows; each result is checked against the CPU reference.
        std::fill(hC.begin(), hC.end(), NAN);
        std::fill(pC, pC + nc, NAN);
        if (err.empty()) row.pageable_ms = flow_median(hA.data(), hB.data(), hC.data(), mul, &err);
        if (err.empty()) row.pinned_ms = flow_median(pA, pB, pC, mul, &err);
        if (err.empty()) {
          row.rel_err = std::max(rel_error(hC.data(), ref), rel_error(pC, ref));
          row.ok = row.rel_err <= tolerance<Float>();
          if (!row.ok)
            err = fmt("wrong result: max rel error %.3e vs CPU reference (tolerance %.0e)",
                      row.rel_err, tolerance<Float>());
        }
      } catch (const std::exception& e) {
        err = e.what();
      }
      row.error = err;
      if (!err.empty()) row.ok = false;
      rows.push_back(row);
    }
  } catch (const std::exception& e) {
    fatal = e.what();
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFreeHost(pA);
  cudaFreeHost(pB);
  cudaFreeHost(pC);

  // ---- gemm::host: the same flow with overlapped copies (its own row here), and larger ones.
  const HostFlowOutput host_rows = run_host_flows(opt, hA, hB, ref);
  {
    Row r;
    r.impl = "gemm::host (Tuned, copies overlapped)";
    r.describe = host_rows.plan;
    r.pageable_ms = host_rows.pageable_ms;
    r.pinned_ms = host_rows.pinned_ms;
    r.rel_err = host_rows.rel_err;
    r.ok = host_rows.row_ok;
    r.error = host_rows.row_error;
    rows.push_back(r);
  }

  // ---- table
  std::printf("\n## Whole flow, %s fp32 (%s; median of %d runs; device buffers allocated "
              "beforehand)\n\n",
              s.str().c_str(), device_summary().c_str(), runs);
  std::printf("CPU reference: gemm::reference::gemm, 1 thread, fp64 accumulation: %.1f ms. "
              "Copies alone (A, B to the device, C back): %s ms pageable, %s ms pinned.\n\n",
              cpu_ms, num(copies_pageable_ms).c_str(), num(copies_pinned_ms).c_str());
  std::printf("Rows above gemm::host copy A and B, multiply and copy C back one after another; "
              "gemm::host overlaps its copies and multiplies (plan: see the next section; its kernel "
              "time is not separable).\n\n");
  std::printf("| implementation | GPU kernel (ms) | whole flow, pageable (ms) | whole flow, pinned "
              "(ms) | CPU 1 thread (ms) | CPU / pinned flow | max rel err vs CPU | ok |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %s | %s | %s | %.1f | %s | %s | %s |\n", r.impl.c_str(),
                num(r.kernel_ms).c_str(), num(r.pageable_ms).c_str(), num(r.pinned_ms).c_str(),
                cpu_ms, num(cpu_ms / r.pinned_ms, "%.0fx").c_str(),
                num(r.rel_err, "%.1e").c_str(),
                r.ok ? "yes" : ("NO: " + r.error).c_str());
  }
  if (!fatal.empty()) std::printf("\nERROR: %s\n", fatal.c_str());
  std::printf("\n");
  std::fflush(stdout);

  // ---- gemm::host's own tables.
  std::fputs(host_rows.tables.c_str(), stdout);
  std::fflush(stdout);

  // ---- JSON
  if (!opt.flow_out.empty()) {
    std::ofstream out(opt.flow_out);
    if (!out) {
      std::fprintf(stderr, "gemm_bench: cannot write %s\n", opt.flow_out.c_str());
      return 1;
    }
    out << "{\n  \"context\": {";
    bool first = true;
    for (const auto& [k, v] : context_entries(opt)) {
      out << (first ? "\n" : ",\n") << "    \"" << json_escape(k) << "\": \"" << json_escape(v)
          << "\"";
      first = false;
    }
    out << "\n  },\n";
    out << "  \"type\": \"float\",\n  \"m\": " << s.m << ",\n  \"n\": " << s.n
        << ",\n  \"k\": " << s.k << ",\n  \"runs\": " << runs << ",\n";
    out << "  \"cpu_reference_ms\": " << jnum(cpu_ms) << ",\n  \"cpu_reference_threads\": 1,\n";
    out << "  \"copies_pageable_ms\": " << jnum(copies_pageable_ms)
        << ",\n  \"copies_pinned_ms\": " << jnum(copies_pinned_ms) << ",\n";
    out << "  \"error\": \"" << json_escape(fatal) << "\",\n";
    out << "  \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      out << (i ? ",\n" : "\n") << "    {\"impl\": \"" << json_escape(r.impl)
          << "\", \"describe\": \"" << json_escape(r.describe)
          << "\", \"kernel_ms\": " << jnum(r.kernel_ms)
          << ", \"flow_pageable_ms\": " << jnum(r.pageable_ms)
          << ", \"flow_pinned_ms\": " << jnum(r.pinned_ms)
          << ", \"max_rel_err\": " << jnum(r.rel_err) << ", \"ok\": " << (r.ok ? "true" : "false")
          << ", \"error\": \"" << json_escape(r.error) << "\"}";
    }
    out << "\n  ],\n" << host_rows.json << "\n}\n";
    std::printf("gemm_bench: wrote %s\n", opt.flow_out.c_str());
  }
  bool all_ok = fatal.empty() && host_rows.ok;
  for (const Row& r : rows) all_ok &= r.ok;
  return all_ok ? 0 : 1;
}

}  // namespace gemm_bench
