#pragma once
// The plan of a gemm::host call (no CUDA calls here: the host tests check it without a GPU). A
// FlowPlan cuts C into row blocks x column blocks and k into slices, says in which order the tiles
// are computed and how many device buffers (slots) each operand gets; with it, what the planner
// (planner.cuh) needs to know about a call (Problem), the caller's overrides (Tuning), the shapes
// of the slots, and the multiplies in execution order (make_steps).
//
// Terms. A *piece* is the part of A or B one multiply reads: A(i, p) is row block i of op(A) by
// k slice p, B(p, j) is k slice p by column block j. A *tile* is C(i, j). A *step* is one
// multiply, C(i, j) (+)= A(i, p) B(p, j); a tile's steps run p ascending (one after another,
// except in core slice by slice), and a tile lives in one C slot from its first step to its copy
// back. Pieces and tiles are copied into *slots*: device buffers with 16-byte rows (the device
// leading dimension is the width rounded up to 16 bytes, so every multiply gets aligned operands
// whatever the host layout).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>
#include "../types.cuh"

namespace gemm::host::detail {

constexpr std::size_t kBufferAlign = 256;  // every device buffer starts on a 256-byte boundary
constexpr std::size_t kNoFit = std::numeric_limits<std::size_t>::max();
constexpr double kMaxSteps = 65536;  // plans with more multiplies are refused (a budget far too small)

// Saturating arithmetic: a size that does not fit in size_t becomes kNoFit (and never fits a budget).
inline std::size_t sat_mul(std::size_t a, std::size_t b) {
  if (a != 0 && b > kNoFit / a) return kNoFit;
  return a * b;
}
inline std::size_t sat_add(std::size_t a, std::size_t b) { return b > kNoFit - a ? kNoFit : a + b; }
inline std::size_t round_up(std::size_t x, std::size_t a) {
  if (x > kNoFit - (a - 1)) return kNoFit;
  return (x + a - 1) / a * a;
}
inline long long ceil_div_ll(long long a, long long b) { return (a + b - 1) / b; }

struct Range {
  int begin = 0;
  int size = 0;
};

// [0, total) in ranges of `block` elements (the last one shorter). total == 0 gives one empty range.
inline std::vector<Range> split_by(int total, int block) {
  std::vector<Range> r;
  if (total <= 0) {
    r.push_back({0, 0});
    return r;
  }
  block = std::max(1, std::min(block, total));
  for (long long b = 0; b < total; b += block)
    r.push_back({static_cast<int>(b), static_cast<int>(std::min<long long>(block, total - b))});
  return r;
}

// split_by with the first and the last range halved, when there are at least three: the first
// multiply starts after half a block has arrived, and the last one leaves half a block to copy back.
inline std::vector<Range> split_tapered(int total, int block) {
  std::vector<Range> r = split_by(total, block);
  if (r.size() < 3) return r;
  std::vector<Range> t;
  auto halve = [&](Range x) {
    if (x.size < 2) {
      t.push_back(x);
      return;
    }
    const int h = x.size / 2;
    t.push_back({x.begin, h});
    t.push_back({x.begin + h, x.size - h});
  };
  halve(r.front());
  for (std::size_t i = 1; i + 1 < r.size(); ++i) t.push_back(r[i]);
  halve(r.back());
  return t;
}

inline int max_size(const std::vector<Range>& r) {
  int m = 0;
  for (const Range& x : r) m = std::max(m, x.size);
  return m;
}

// What the planner needs to know about a call.
struct Problem {
  int m = 0, n = 0, k = 0;
  Op op_a = Op::N, op_b = Op::N;
  int in_bytes = 4;    // an element of A and B
  int out_bytes = 4;   // an element of C
  int acc_bytes = 4;   // an element of the k-split accumulator (float for 16-bit C, else C's type)
  bool product = true;      // k > 0 and alpha != 0: A and B are read
  bool load_c = false;      // beta != 0: C is read
  bool can_widen = false;   // the policy can write float C for this type (16-bit C split in k accumulates in float)
  bool staged_a = false, staged_b = false, staged_c = false;  // pageable: copies go through pinned staging
  std::size_t budget = 0;   // device bytes for the call's buffers
  double tflops = 50;       // multiply rate the estimator assumes (TFLOP/s)
};

// Same problem (the device budget compared or not).
inline bool same_problem(const Problem& a, const Problem& b, bool budget = true) {
  return a.m == b.m && a.n == b.n && a.k == b.k && a.op_a == b.op_a && a.op_b == b.op_b && a.in_bytes == b.in_bytes &&
         a.out_bytes == b.out_bytes && a.acc_bytes == b.acc_bytes && a.product == b.product && a.load_c == b.load_c &&
         a.can_widen == b.can_widen && a.staged_a == b.staged_a && a.staged_b == b.staged_b &&
         a.staged_c == b.staged_c && (!budget || a.budget == b.budget) && a.tflops == b.tflops;
}

// Caller's overrides (gemm::host::Options); 0 means automatic.
struct Tuning {
  int block_rows = 0;
  int block_cols = 0;
  int k_slices = 0;
  int lanes = 0;                          // compute streams
  std::size_t chunk_bytes = 2u << 20;     // pinned staging slot size (at least one device row; H100, 1024^3
                                          // pageable: 2 MiB 0.76 ms, 512 KiB 0.83)
  int stage_slots = 4;                    // staging slots per direction
  int by_slice = -1;                      // in core with k split: -1 the estimate chooses, 0 tile by tile, 1 slice by slice
};
inline bool same_tuning(const Tuning& a, const Tuning& b) {
  return a.block_rows == b.block_rows && a.block_cols == b.block_cols && a.k_slices == b.k_slices &&
         a.lanes == b.lanes && a.chunk_bytes == b.chunk_bytes && a.stage_slots == b.stage_slots &&
         a.by_slice == b.by_slice;
}

enum class Order : unsigned char {
  // In core (every piece and tile resident): row blocks of A and column blocks of B are copied in
  // proportion (A0, B0, A1, ...), and each tile as soon as its row and column block are on the
  // device. With one column block: all of B, then A (and C) row block by row block.
  Interleaved,
  ColumnsOuter,  // out of core: column block outer, row block inner (a B panel stays while A streams)
  RowsOuter,     // out of core: row block outer, column block inner (an A panel stays while B streams)
};

inline const char* to_string(Order o) {
  switch (o) {
    case Order::Interleaved: return "interleaved";
    case Order::ColumnsOuter: return "column blocks outer";
    case Order::RowsOuter: return "row blocks outer";
  }
  return "?";
}

// The plan of the flow of copies and multiplies a call becomes (not gemm::Plan, plan.cuh: what one
// device call runs).
struct FlowPlan {
  Order order = Order::Interleaved;
  std::vector<Range> rows, cols, ks;  // ks is {{0, 0}} when there is no product
  int depth_a = 0, depth_b = 0, depth_c = 0;  // slots per operand (device buffers)
  bool widened = false;  // tiles accumulate in float (16-bit C split in k)
  int lanes = 1;         // compute streams
  bool in_core = false;
  // In core with k split: every tile's first slice, then every tile's second, ... (else a tile's
  // slices one after another). The first slice's pieces are a quarter (with 4 slices) of what
  // tile by tile needs before it computes at full speed, so the multiplies stop waiting on the
  // copies early; the tiles then all finish in the last slice, one by one, each going back while
  // the next is multiplied.
  bool by_slice = false;
};

// Stored shape of a piece (rows x width in the operand's memory order) and of a slot.
struct Shape2 {
  int rows = 0, width = 0;
};
inline Shape2 a_piece(const Problem& p, int mi, int kp) { return p.op_a == Op::N ? Shape2{mi, kp} : Shape2{kp, mi}; }
inline Shape2 b_piece(const Problem& p, int kp, int nj) { return p.op_b == Op::N ? Shape2{kp, nj} : Shape2{nj, kp}; }

// Device leading dimension: the width rounded up to whole 16-byte units.
inline int device_ld(int width, int elem_bytes) {
  const long long per = std::max(1, 16 / elem_bytes);
  return static_cast<int>(std::min<long long>(ceil_div_ll(std::max(width, 1), per) * per, std::numeric_limits<int>::max()));
}

struct BufferShape {
  int rows = 0, ld = 0, elem = 0;
  std::size_t bytes = 0;  // rows * ld * elem rounded up to kBufferAlign
};
inline BufferShape buffer_shape(Shape2 s, int elem) {
  BufferShape b;
  b.rows = s.rows;
  b.ld = device_ld(s.width, elem);
  b.elem = elem;
  b.bytes = round_up(sat_mul(sat_mul(static_cast<std::size_t>(std::max(s.rows, 1)), static_cast<std::size_t>(b.ld)),
                             static_cast<std::size_t>(elem)),
                     kBufferAlign);
  return b;
}

// One slot of each kind, and the device bytes of a plan with pieces of at most mi x kk (A),
// kk x nj (B) and tiles of mi x nj, with da, db and dc slots.
struct SlotShapes {
  BufferShape a, b, c, acc;
  std::size_t device_bytes = 0;
};
inline SlotShapes slot_shapes(const Problem& pr, int mi, int nj, int kk, int da, int db, int dc, bool widened) {
  SlotShapes s;
  if (pr.product) {
    s.a = buffer_shape(a_piece(pr, mi, kk), pr.in_bytes);
    s.b = buffer_shape(b_piece(pr, kk, nj), pr.in_bytes);
  }
  s.c = buffer_shape({mi, nj}, pr.out_bytes);
  if (widened) s.acc = buffer_shape({mi, nj}, pr.acc_bytes);
  std::size_t t = 0;
  t = sat_add(t, sat_mul(static_cast<std::size_t>(da), s.a.bytes));
  t = sat_add(t, sat_mul(static_cast<std::size_t>(db), s.b.bytes));
  t = sat_add(t, sat_mul(static_cast<std::size_t>(dc), sat_add(s.c.bytes, widened ? s.acc.bytes : 0)));
  s.device_bytes = t;
  return s;
}
inline SlotShapes slot_shapes(const Problem& pr, const FlowPlan& pl) {
  return slot_shapes(pr, max_size(pl.rows), max_size(pl.cols), max_size(pl.ks), pl.depth_a, pl.depth_b, pl.depth_c,
                     pl.widened);
}

struct Step {
  int i = 0, j = 0, p = 0;
};

// The multiplies in execution order: the tiles in the plan's order, each tile's k slices
// ascending, one tile after another or (by_slice) slice by slice.
inline std::vector<Step> make_steps(const FlowPlan& pl) {
  const int gm = static_cast<int>(pl.rows.size()), gn = static_cast<int>(pl.cols.size()),
            kp = static_cast<int>(pl.ks.size());
  std::vector<Step> tiles;  // p unused
  if (pl.order == Order::ColumnsOuter) {
    for (int j = 0; j < gn; ++j)
      for (int i = 0; i < gm; ++i) tiles.push_back({i, j, 0});
  } else if (pl.order == Order::RowsOuter) {
    for (int i = 0; i < gm; ++i)
      for (int j = 0; j < gn; ++j) tiles.push_back({i, j, 0});
  } else {
    // A row block or a B column block at a time, whichever is behind in proportion; each new
    // block releases the tiles it completes.
    int ia = 0, ib = 0;
    while (ia < gm || ib < gn) {
      const bool take_a = ia < gm && (ib == gn || static_cast<long long>(ia) * gn <= static_cast<long long>(ib) * gm);
      if (take_a) {
        for (int j = 0; j < ib; ++j) tiles.push_back({ia, j, 0});
        ++ia;
      } else {
        for (int i = 0; i < ia; ++i) tiles.push_back({i, ib, 0});
        ++ib;
      }
    }
  }
  std::vector<Step> steps;
  steps.reserve(tiles.size() * static_cast<std::size_t>(kp));
  if (pl.by_slice) {
    for (int p = 0; p < kp; ++p)
      for (const Step& t : tiles) steps.push_back({t.i, t.j, p});
  } else {
    for (const Step& t : tiles)
      for (int p = 0; p < kp; ++p) steps.push_back({t.i, t.j, p});
  }
  return steps;
}

}  // namespace gemm::host::detail
