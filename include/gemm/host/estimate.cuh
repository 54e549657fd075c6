#pragma once
// The estimator of gemm::host's plans: a list-scheduling simulation of the operation list
// (schedule.cuh) with nominal H100 rates. Coarse (no contention between concurrent kernels beyond a
// shared throughput, no copy-engine detail), but it ranks plans and gives the predictions the
// benchmark prints beside its measures.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>
#include "schedule.cuh"

namespace gemm::host::detail {

struct Rates {
  double h2d_gbs = 48, d2h_gbs = 48;  // PCIe Gen5 x16, pinned, large copies
  double stage_gbs = 40;              // host memcpy into or out of pinned staging, all copy threads together
  double copy_us = 1.5;               // per copy on the copy engine
  double stage_us = 5;                // per staging copy (hand-off to the copy threads)
  double launch_us = 4;               // from a kernel's dependencies to its first block running
  // Device time a multiply costs beyond its flops (its last wave leaves SMs idle that the other
  // lane does not always fill). H100, 8192^3 fp32 pinned, slice by slice: 256 multiplies of 512
  // rows took 47.0 ms summed over the two lanes, 64 of 2048 rows 42.4 ms, about 12 us more per
  // multiply; without it the estimate picked the 512-row plan (measured 25.07 ms against 24.30).
  double gemm_tail_us = 10;
  double sms = 132;
  double device_gbs = 2500;           // widen / narrow passes
  // Host time to enqueue an operation (the enqueue runs ahead of the GPU only while it is faster).
  double enqueue_copy_us = 2.5, enqueue_gemm_us = 5, enqueue_wait_us = 0.6;
  double finish_us = 8;  // last completion to the caller seeing it
};

inline double op_bytes(const Schedule& s, const FlowOp& op) {
  const int elem = op.mat == Mat::C ? s.problem.out_bytes : s.problem.in_bytes;
  return static_cast<double>(op.rows) * op.width * elem;
}

// spans (optional): each operation's predicted start and end, in microseconds.
inline double estimate_ms(const Schedule& s, const Rates& r = Rates{},
                          std::vector<std::pair<double, double>>* spans = nullptr) {
  const std::size_t n = s.ops.size();
  std::vector<double> end(n, 0.0);
  if (spans) spans->assign(n, {0.0, 0.0});
  double lane_free[kMaxLanes] = {};
  double gpu = 0, cpu = 0, last = 0;  // microseconds
  const double rate = s.problem.tflops * 1e6;  // flop per microsecond
  for (std::size_t i = 0; i < n; ++i) {
    const FlowOp& op = s.ops[i];
    int cross = 0;
    double start = lane_free[op.lane];
    for (int d : op.deps) {
      start = std::max(start, end[d]);
      cross += s.ops[d].lane != op.lane;
    }
    cpu += cross * r.enqueue_wait_us;
    double dur = 0;
    switch (op.kind) {
      // The staging copies run on the calling thread (with the copy threads), one at a time, between
      // its enqueues: a copy in starts once the thread is free and holds it; a copy out waits for its
      // device-to-host copy (the thread goes on meanwhile) and takes the thread's time when it runs.
      // (Modelled as concurrent with the enqueues, the estimate preferred many small copies: 1024^3
      // fp32 pageable, 8 row blocks x 2 k slices predicted 0.50 ms and measured 1.00; 4 x 1, measured
      // 0.59.)
      case OpKind::StageIn:
      case OpKind::StageOut:
        dur = r.stage_us + op_bytes(s, op) / (r.stage_gbs * 1e3);
        if (op.kind == OpKind::StageIn) {
          start = std::max(start, cpu);
          cpu = start + dur;
        } else {
          cpu += dur;
        }
        break;
      case OpKind::H2D:
      case OpKind::D2H:
        cpu += r.enqueue_copy_us;
        start = std::max(start, cpu);
        dur = r.copy_us + op_bytes(s, op) / ((op.kind == OpKind::H2D ? r.h2d_gbs : r.d2h_gbs) * 1e3);
        break;
      case OpKind::Widen:
      case OpKind::Narrow: {
        cpu += r.enqueue_gemm_us;
        start = std::max(start, cpu);
        const double bytes = static_cast<double>(op.tile_rows) * op.tile_cols * (s.problem.out_bytes + s.problem.acc_bytes);
        dur = r.launch_us + bytes / (r.device_gbs * 1e3);
        break;
      }
      case OpKind::Gemm: {
        cpu += r.enqueue_gemm_us;
        start = std::max(start, cpu);
        const Step st = s.steps[op.step];
        const double mi = s.plan.rows[st.i].size, nj = s.plan.cols[st.j].size, kp = s.plan.ks[st.p].size;
        const double flops = 2 * mi * nj * std::max(kp, 1.0);
        // Throughput shared by every kernel in flight; latency: one 64 x 64 tile's k loop on one SM.
        gpu = std::max(gpu, start) + flops / rate + r.gemm_tail_us;
        const double floor = r.launch_us + 2.0 * 64 * 64 * std::max(kp, 1.0) / (rate / r.sms);
        dur = std::max(start + floor, gpu) - start;
        break;
      }
    }
    end[i] = start + dur;
    if (spans) (*spans)[i] = {start, end[i]};
    lane_free[op.lane] = end[i];
    last = std::max(last, end[i]);
  }
  return (std::max(last, cpu) + r.finish_us) / 1000.0;
}

}  // namespace gemm::host::detail
