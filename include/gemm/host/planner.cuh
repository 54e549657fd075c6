#pragma once
// gemm::host's planner (no CUDA calls here, so the host tests check all of it without a GPU):
//
//   Problem  ->  make_schedule()  ->  Schedule
//
// It searches the plans (flow_plan.cuh) that fit the device budget, in core (every piece and tile
// resident) where they can, out of core (pieces streamed through two-slot rings) otherwise, builds
// each candidate's operation list (schedule.cuh) and keeps the one the estimator (estimate.cuh)
// predicts fastest.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>
#include "estimate.cuh"
#include "flow_plan.cuh"
#include "schedule.cuh"

namespace gemm::host::detail {

inline double mat_bytes(const Problem& p, Mat m) {
  if (m == Mat::A) return static_cast<double>(p.m) * p.k * p.in_bytes;
  if (m == Mat::B) return static_cast<double>(p.k) * p.n * p.in_bytes;
  return static_cast<double>(p.m) * p.n * p.out_bytes;
}

// Two compute streams: one multiply runs while the next one's operands arrive. More only made the
// multiplies compete for the SMs (H100, 1024^3 fp32 pinned, blocks of 64 / 128 / 256 rows whose
// multiplies fill the GPU with k slices: 2 streams 270 / 241 / 259 us, 4 streams 281 / 249 / 265).
inline int auto_lanes(const FlowPlan&) { return 2; }

// The candidate sizes for cutting `total` into about `parts` blocks: near-even blocks, rounded
// up to a multiple of 8 (64 above 512) so that kernels see whole tiles where they can.
inline int block_for(int total, long long parts) {
  if (parts <= 1 || total <= 1) return std::max(total, 1);
  long long b = ceil_div_ll(total, parts);
  const long long g = b >= 512 ? 64 : (b >= 16 ? 8 : 1);
  b = ceil_div_ll(b, g) * g;
  return static_cast<int>(std::max<long long>(1, std::min<long long>(b, total)));
}

inline std::vector<long long> part_counts(int total) {
  std::vector<long long> c;
  for (long long d : {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024,
                      1536, 2048, 4096, 8192, 16384, 32768, 65536})
    if (d <= total) c.push_back(d);
  if (c.empty()) c.push_back(1);
  return c;
}

struct PlanResult {
  bool ok = false;
  Schedule schedule;
};

// Widening applies to a k split when C is narrower than the accumulator and the policy can write float.
inline bool widens(const Problem& p, int k_slices) { return k_slices > 1 && p.out_bytes < p.acc_bytes && p.can_widen; }

class Planner {
 public:
  Planner(const Problem& p, const Tuning& t) : p_(p), t_(t) {}

  PlanResult run() {
    if (!p_.product) {
      scale_only();
    } else {
      in_core();
      if (!best_.ok) out_of_core();
    }
    return std::move(best_);
  }

 private:
  // Scores a plan that fits and keeps the fastest.
  void consider(FlowPlan pl) {
    if (static_cast<double>(pl.rows.size()) * pl.cols.size() * pl.ks.size() > kMaxSteps) return;
    if (pl.lanes <= 0) pl.lanes = t_.lanes > 0 ? std::min(t_.lanes, kMaxComputeLanes) : auto_lanes(pl);
    if (slot_shapes(p_, pl).device_bytes > p_.budget) return;
    if (pl.by_slice && static_cast<std::size_t>(pl.depth_c) < pl.rows.size() * pl.cols.size()) return;  // tiles share C slots
    Schedule s = Builder(p_, pl, t_).build();
    s.predicted_ms = estimate_ms(s);
    if (!best_.ok || s.predicted_ms < best_.schedule.predicted_ms) {
      best_.ok = true;
      best_.schedule = std::move(s);
    }
  }

  // min_parts: fewer blocks only where blocks of min_block rows cannot make that many.
  std::vector<std::vector<Range>> row_options(int total, int forced, int min_block, int min_parts = 1) const {
    std::vector<std::vector<Range>> out;
    if (forced > 0) {
      out.push_back(split_by(total, forced));
      return out;
    }
    const int fewest = std::max(1, std::min(min_parts, total / std::max(min_block, 1)));
    for (int parts : {1, 2, 4, 8, 16}) {
      const int b = block_for(total, parts);
      if (parts < fewest) continue;
      if (parts > 1 && (b < min_block || b >= total)) continue;
      out.push_back(split_by(total, b));
      if (parts >= 4) out.push_back(split_tapered(total, b));
    }
    return out;
  }

  std::vector<int> k_options() const {
    if (t_.k_slices > 0) return {std::min(t_.k_slices, std::max(p_.k, 1))};
    std::vector<int> o{1};
    for (int s : {2, 4})
      if (p_.k / s >= 256 && (p_.out_bytes >= p_.acc_bytes || p_.can_widen)) o.push_back(s);
    return o;
  }

  // Everything resident: each piece copied once, in the interleaved order.
  void in_core() {
    // Column blocks of C (and of B when it is stored row-major) are copied row by row, so they
    // must keep rows of at least 2 KB for the copy engines; likewise row blocks of A stored transposed.
    auto col_ok = [&](int nt) {
      if (nt >= p_.n) return true;
      if (static_cast<long long>(nt) * p_.out_bytes < 2048) return false;
      return p_.op_b == Op::T || static_cast<long long>(nt) * p_.in_bytes >= 2048;
    };
    const int min_rows = p_.op_a == Op::T ? std::max(64, 2048 / p_.in_bytes) : 64;
    // A C copied back through staging leaves block by block: with fewer than 4 row blocks the last
    // block's way out (device-to-host, then the host copy) is a serial tail that the estimate
    // underrates (H100, 1024^3 fp32 pageable: 1 row block x 2 k slices predicted 0.48 ms, measured
    // 0.64-0.67; 4 x 1 predicted 0.50, measured 0.57; 8 x 1 0.57 and 0.72).
    const auto row_sets = row_options(p_.m, t_.block_rows, min_rows, p_.staged_c ? 4 : 1);
    std::vector<std::vector<Range>> col_sets;
    if (t_.block_cols > 0) {
      col_sets.push_back(split_by(p_.n, t_.block_cols));
    } else {
      for (int parts : {1, 2, 4}) {
        const int b = block_for(p_.n, parts);
        if (parts > 1 && (b >= p_.n || !col_ok(b))) continue;
        col_sets.push_back(split_by(p_.n, b));
      }
    }
    for (int kp : k_options()) {
      const auto ks = split_by(p_.k, block_for(p_.k, kp));
      const int kslices = static_cast<int>(ks.size());
      for (const auto& rows : row_sets)
        for (const auto& cols : col_sets) {
          FlowPlan pl;
          pl.order = Order::Interleaved;
          pl.rows = rows;
          pl.cols = cols;
          pl.ks = ks;
          pl.widened = widens(p_, kslices);
          pl.depth_a = static_cast<int>(rows.size()) * kslices;
          pl.depth_b = static_cast<int>(cols.size()) * kslices;
          pl.depth_c = static_cast<int>(rows.size() * cols.size());
          pl.in_core = true;
          pl.lanes = 0;
          for (int by_slice : {0, 1}) {
            if ((by_slice == 1 && kslices == 1) || (t_.by_slice >= 0 && by_slice != t_.by_slice)) continue;
            pl.by_slice = by_slice == 1;
            consider(pl);
          }
        }
    }
  }

  // Ring depths: one slot for a piece that never changes, else two (one loading, one in use).
  struct Ring {
    long long gm, gn, kp;
    int da, db, dc;
    bool widened;
  };
  Ring ring(int mt, int nt, int kt) const {
    Ring r;
    r.gm = ceil_div_ll(p_.m, mt);
    r.gn = ceil_div_ll(p_.n, nt);
    r.kp = p_.k > 0 ? ceil_div_ll(p_.k, kt) : 1;
    r.widened = widens(p_, static_cast<int>(std::min<long long>(r.kp, 2)));
    r.da = r.gm * r.kp > 1 ? 2 : 1;
    r.db = r.gn * r.kp > 1 ? 2 : 1;
    r.dc = r.gm * r.gn > 1 ? 2 : 1;
    return r;
  }
  bool ring_fits(int mt, int nt, int kt) const {
    const Ring r = ring(mt, nt, kt);
    return slot_shapes(p_, std::min(mt, p_.m), std::min(nt, p_.n), std::min(kt, p_.k), r.da, r.db, r.dc, r.widened)
               .device_bytes <= p_.budget;
  }
  FlowPlan ring_plan(Order o, int mt, int nt, int kt) const {
    const Ring r = ring(mt, nt, kt);
    FlowPlan pl;
    pl.order = o;
    pl.rows = split_by(p_.m, mt);
    pl.cols = split_by(p_.n, nt);
    pl.ks = split_by(p_.k, kt);
    pl.widened = r.widened;
    pl.depth_a = r.da;
    pl.depth_b = r.db;
    pl.depth_c = r.dc;
    pl.lanes = 0;
    return pl;
  }
  bool fits(const FlowPlan& pl) const { return slot_shapes(p_, pl).device_bytes <= p_.budget; }

  // Largest x in [1, hi] with ok(x), or 0. x == hi is tried on its own: a single block needs
  // fewer slots, so the bytes are not monotonic there; below it they grow with x.
  template <class Ok>
  static int largest_fit(int hi, Ok&& ok) {
    if (hi <= 0) return 0;
    if (ok(hi)) return hi;
    int lo = 0, up = hi - 1;  // ok(lo) holds (vacuously for 0)
    while (lo < up) {
      const int mid = lo + (up - lo + 1) / 2;
      if (ok(mid)) lo = mid;
      else up = mid - 1;
    }
    return lo;
  }

  // Bytes the plan copies to the device: every load of a piece counts (the same ring walk as
  // the builder's, without building the operations).
  double loaded_bytes(const FlowPlan& pl) const {
    const std::vector<Step> steps = make_steps(pl);
    const int gn = static_cast<int>(pl.cols.size()), kp = static_cast<int>(pl.ks.size());
    std::vector<long long> a(pl.depth_a, -1), b(pl.depth_b, -1);
    int an = 0, bn = 0;
    double bytes = 0;
    auto use = [](std::vector<long long>& occ, int& next, long long piece) {
      for (long long o : occ)
        if (o == piece) return false;
      occ[next] = piece;
      next = (next + 1) % static_cast<int>(occ.size());
      return true;
    };
    for (const Step& st : steps) {
      const double mi = pl.rows[st.i].size, nj = pl.cols[st.j].size, kk = pl.ks[st.p].size;
      if (use(a, an, static_cast<long long>(st.i) * kp + st.p)) bytes += mi * kk * p_.in_bytes;
      if (use(b, bn, static_cast<long long>(st.p) * gn + st.j)) bytes += kk * nj * p_.in_bytes;
    }
    return bytes;
  }

  // Candidates per family (B panels staying, A panels staying, k split with square tiles),
  // ranked by the bytes they copy, then the estimator on the few best.
  void out_of_core() {
    const bool split_allowed = t_.k_slices != 1;
    const bool whole_k_allowed = t_.k_slices <= 1;
    std::vector<FlowPlan> cands;
    if (whole_k_allowed) {
      for (long long parts : part_counts(p_.n)) {  // B panels (k x nt) stay while row blocks of A stream
        const int nt = block_for(p_.n, parts);
        const int mt = largest_fit(p_.m, [&](int x) { return ring_fits(x, nt, p_.k); });
        if (mt > 0) cands.push_back(ring_plan(Order::ColumnsOuter, mt, nt, p_.k));
      }
      for (long long parts : part_counts(p_.m)) {  // A panels (mt x k) stay while column blocks of B stream
        const int mt = block_for(p_.m, parts);
        const int nt = largest_fit(p_.n, [&](int x) { return ring_fits(mt, x, p_.k); });
        if (nt > 0) cands.push_back(ring_plan(Order::RowsOuter, mt, nt, p_.k));
      }
    }
    if (split_allowed && p_.k > 1) {
      std::vector<int> kts;
      if (t_.k_slices > 1) {
        kts.push_back(block_for(p_.k, t_.k_slices));
      } else {
        for (long long parts : part_counts(p_.k))
          if (parts > 1) kts.push_back(block_for(p_.k, parts));
      }
      const Order o = p_.n >= p_.m ? Order::ColumnsOuter : Order::RowsOuter;
      for (int kt : kts) {  // square-ish C tiles, k in slices
        if (kt >= p_.k) continue;
        const int s = largest_fit(std::max(p_.m, p_.n), [&](int x) { return ring_fits(std::min(x, p_.m), std::min(x, p_.n), kt); });
        if (s > 0) cands.push_back(ring_plan(o, std::min(s, p_.m), std::min(s, p_.n), kt));
      }
    }
    if (cands.empty()) return;
    auto steps = [](const FlowPlan& pl) { return static_cast<double>(pl.rows.size()) * pl.cols.size() * pl.ks.size(); };
    std::vector<std::pair<double, std::size_t>> ranked;
    for (std::size_t i = 0; i < cands.size(); ++i)
      if (steps(cands[i]) <= kMaxSteps) ranked.push_back({loaded_bytes(cands[i]), i});
    std::sort(ranked.begin(), ranked.end(), [&](const auto& x, const auto& y) {
      if (x.first != y.first) return x.first < y.first;
      return steps(cands[x.second]) < steps(cands[y.second]);
    });
    const std::size_t keep = std::min<std::size_t>(ranked.size(), 6);
    for (std::size_t i = 0; i < keep; ++i)
      if (i == 0 || steps(cands[ranked[i].second]) <= 20000) consider(cands[ranked[i].second]);
    for (std::size_t i = 0; i < keep; ++i) consider_lazy_panel(cands[ranked[i].second]);
  }

  // A plan whose staying panel is a whole operand (all of A with B panels streaming, or all of B
  // with A panels streaming) first waits for all of it. Cut into blocks that stay once loaded,
  // loaded as the first pass reaches them, the first multiply waits for one block and one streamed
  // panel: the same bytes copied (8192^3 bf16 in 256 MiB: 42 MiB before the first multiply instead
  // of 154).
  void consider_lazy_panel(const FlowPlan& pl) {
    if (pl.ks.size() != 1) return;
    const bool a_whole = pl.order == Order::ColumnsOuter && pl.rows.size() == 1;
    const bool b_whole = pl.order == Order::RowsOuter && pl.cols.size() == 1;
    if (!a_whole && !b_whole) return;
    const int total = a_whole ? p_.m : p_.n;
    for (int parts : {4, 8, 16}) {
      const int b = block_for(total, parts);
      if (b >= total) continue;
      FlowPlan v = pl;
      (a_whole ? v.rows : v.cols) = split_by(total, b);
      const int blocks = static_cast<int>((a_whole ? v.rows : v.cols).size());
      (a_whole ? v.depth_a : v.depth_b) = blocks;
      v.depth_c = v.rows.size() * v.cols.size() > 1 ? 2 : 1;
      v.lanes = 0;
      consider(v);
    }
  }

  // k == 0 or alpha == 0: C = beta * C, tile by tile.
  void scale_only() {
    FlowPlan whole;
    whole.rows = split_by(p_.m, p_.m);
    whole.cols = split_by(p_.n, p_.n);
    whole.ks = split_by(0, 1);
    whole.depth_c = 1;
    if (fits(whole)) {
      for (const auto& rows : row_options(p_.m, t_.block_rows, 64)) {
        FlowPlan pl = whole;
        pl.rows = rows;
        pl.depth_c = static_cast<int>(rows.size());
        pl.in_core = true;
        consider(pl);
      }
      if (best_.ok) return;
    }
    for (long long parts : part_counts(p_.n)) {
      const int nt = block_for(p_.n, parts);
      const int mt = largest_fit(p_.m, [&](int x) { return ring_fits(x, nt, 1); });
      if (mt > 0) {
        FlowPlan pl = ring_plan(Order::ColumnsOuter, mt, nt, 1);
        pl.ks = split_by(0, 1);
        pl.depth_a = pl.depth_b = 0;
        consider(pl);
        return;
      }
    }
  }

  Problem p_;
  Tuning t_;
  PlanResult best_;
};

inline PlanResult make_schedule(const Problem& p, const Tuning& t) { return Planner(p, t).run(); }

// A budget that always plans (unless the plan would need more than kMaxSteps multiplies): two
// slots of 256 bytes for each of A, B and C, and for the float accumulators of 16-bit C split in
// k. Smaller budgets can still plan small problems.
inline std::size_t min_budget(const Problem& p) {
  if (!p.product) return 2 * kBufferAlign;
  return 2 * kBufferAlign * (3 + (widens(p, 2) ? 1 : 0));
}

}  // namespace gemm::host::detail
