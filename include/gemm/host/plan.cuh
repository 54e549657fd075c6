#pragma once
// gemm::host's plans (no CUDA calls here, so the host tests check all of it without a GPU):
//
//   Problem  ->  make_schedule()  ->  Schedule
//
// A Plan cuts C into row blocks x column blocks and k into slices, says in which order the tiles
// are computed and how many device buffers (slots) each operand gets. A Schedule is that plan as
// an ordered list of operations (staging copies, host-to-device copies, multiplies, conversions,
// device-to-host copies), each on a lane (a stream, or a host thread for the staging copies) and
// each with the earlier operations it must wait for. The executor (executor.cuh) maps lanes to
// streams and cross-lane dependencies to events; the host tests run the same list on the CPU in
// random orders that respect only those dependencies, and check every conflicting pair of
// operations is ordered.
//
// Terms. A *piece* is the part of A or B one multiply reads: A(i, p) is row block i of op(A) by
// k slice p, B(p, j) is k slice p by column block j. A *tile* is C(i, j). A *step* is one
// multiply, C(i, j) (+)= A(i, p) B(p, j); a tile's steps run p ascending (one after another,
// except in core slice by slice), and a tile lives in one C slot from its first step to its copy
// back. Pieces and tiles are copied into *slots*: device buffers with 16-byte rows (the device
// leading dimension is the width rounded up to 16 bytes, so every multiply gets aligned operands
// whatever the host layout).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
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

struct Plan {
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
inline SlotShapes slot_shapes(const Problem& pr, const Plan& pl) {
  return slot_shapes(pr, max_size(pl.rows), max_size(pl.cols), max_size(pl.ks), pl.depth_a, pl.depth_b, pl.depth_c,
                     pl.widened);
}

struct Step {
  int i = 0, j = 0, p = 0;
};

// The multiplies in execution order: the tiles in the plan's order, each tile's k slices
// ascending, one tile after another or (by_slice) slice by slice.
inline std::vector<Step> make_steps(const Plan& pl) {
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

// ---------------------------------------------------------------------------------------------
// The operation list
// ---------------------------------------------------------------------------------------------
enum class OpKind : unsigned char { StageIn, H2D, Gemm, Widen, Narrow, D2H, StageOut };
enum class Mat : unsigned char { A, B, C };

inline const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::StageIn: return "stage in";
    case OpKind::H2D: return "H2D";
    case OpKind::Gemm: return "gemm";
    case OpKind::Widen: return "widen";
    case OpKind::Narrow: return "narrow";
    case OpKind::D2H: return "D2H";
    case OpKind::StageOut: return "stage out";
  }
  return "?";
}

// Lanes: each is FIFO (a stream, or for the staging copies a host queue). Compute lanes follow.
constexpr int kLaneH2D = 0, kLaneD2H = 1, kLaneStageIn = 2, kLaneStageOut = 3, kLaneCompute = 4;
constexpr int kMaxComputeLanes = 4;
constexpr int kMaxLanes = kLaneCompute + kMaxComputeLanes;

inline const char* lane_name(int lane) {
  static const char* names[kMaxLanes] = {"H2D",       "D2H",       "stage in",  "stage out",
                                         "compute 0", "compute 1", "compute 2", "compute 3"};
  return lane >= 0 && lane < kMaxLanes ? names[lane] : "?";
}

inline bool is_host_op(OpKind k) { return k == OpKind::StageIn || k == OpKind::StageOut; }

struct FlowOp {
  OpKind kind = OpKind::H2D;
  int lane = 0;
  // Copies (StageIn, H2D, D2H, StageOut): a block of a stored host matrix.
  Mat mat = Mat::A;
  long long row = 0, col = 0;  // the block's first element, in stored coordinates (row * ld + col)
  int rows = 0, width = 0;     // stored rows, and elements per row
  int buffer = -1;             // the device buffer, and the block's first row in it
  int buffer_row = 0;
  int stage = -1;  // pinned staging slot (rows at the device pitch), or -1: straight to/from host memory
  // Gemm, Widen, Narrow.
  int step = -1;                          // Gemm: index into Schedule::steps
  int a = -1, b = -1, c = -1, acc = -1;   // buffers
  bool first = false;                     // Gemm: first k slice of its tile (beta applies; later slices add)
  int tile_rows = 0, tile_cols = 0;       // Widen, Narrow: the tile
  std::vector<int> deps;                  // earlier operations that must be complete first
};

struct Buffer {
  Mat mat = Mat::A;
  bool acc = false;  // a float accumulator (widened C), else the operand's own type
  BufferShape shape;
  std::size_t offset = 0;  // from the start of the call's device allocation
};

struct Schedule {
  Problem problem;
  Plan plan;
  std::vector<Step> steps;
  std::vector<Buffer> buffers;
  std::size_t device_bytes = 0;
  std::size_t stage_slot_bytes = 0;
  int stage_in_slots = 0, stage_out_slots = 0;
  std::size_t stage_bytes = 0;  // pinned staging for the call
  std::vector<FlowOp> ops;
  double h2d_bytes = 0, d2h_bytes = 0;  // bytes crossing PCIe (pieces loaded again count again)
  double first_load_bytes = 0;          // bytes copied to the device before the first multiply can start
  double predicted_ms = 0;              // estimate() with the default rates
};

// Builds the operation list of a plan; dependencies come from who last wrote and read each buffer
// and staging slot (readers wait for the writers; a new writer waits for every reader since).
class Builder {
 public:
  Builder(const Problem& pr, const Plan& pl, const Tuning& tu) : pr_(pr), s_() {
    s_.problem = pr;
    s_.plan = pl;
    s_.steps = make_steps(pl);
    shapes_ = slot_shapes(pr, pl);
    std::size_t off = 0;
    auto add = [&](Mat m, bool acc, const BufferShape& sh, int count, std::vector<int>& ids) {
      for (int i = 0; i < count; ++i) {
        ids.push_back(static_cast<int>(s_.buffers.size()));
        s_.buffers.push_back({m, acc, sh, off});
        off += sh.bytes;
      }
    };
    add(Mat::A, false, shapes_.a, pl.depth_a, a_slots_);
    add(Mat::B, false, shapes_.b, pl.depth_b, b_slots_);
    add(Mat::C, false, shapes_.c, pl.depth_c, c_slots_);
    if (pl.widened) add(Mat::C, true, shapes_.acc, pl.depth_c, acc_slots_);
    s_.device_bytes = off;
    buf_hz_.resize(s_.buffers.size());

    // Staging: a slot holds whole rows at the device pitch, at least one row of any staged matrix.
    std::size_t row_bytes = 0;
    const bool stage_in = (pr.product && (pr.staged_a || pr.staged_b)) || (pr.load_c && pr.staged_c);
    const bool stage_out = pr.staged_c;
    if (pr.product && pr.staged_a) row_bytes = std::max(row_bytes, pitch(shapes_.a));
    if (pr.product && pr.staged_b) row_bytes = std::max(row_bytes, pitch(shapes_.b));
    if (pr.staged_c) row_bytes = std::max(row_bytes, pitch(shapes_.c));
    if (stage_in || stage_out) {
      s_.stage_slot_bytes = round_up(std::max(tu.chunk_bytes, row_bytes), kBufferAlign);
      s_.stage_in_slots = stage_in ? std::max(1, tu.stage_slots) : 0;
      s_.stage_out_slots = stage_out ? std::max(1, tu.stage_slots) : 0;
      s_.stage_bytes = sat_mul(s_.stage_slot_bytes, static_cast<std::size_t>(s_.stage_in_slots + s_.stage_out_slots));
      stage_hz_.resize(s_.stage_in_slots + s_.stage_out_slots);
    }
  }

  Schedule build() {
    const Plan& pl = s_.plan;
    const int gn = static_cast<int>(pl.cols.size()), kp = static_cast<int>(pl.ks.size());
    std::vector<int> a_occ(a_slots_.size(), -1), b_occ(b_slots_.size(), -1);
    int a_next = 0, b_next = 0, c_next = 0, tiles_begun = 0;
    // Per tile (i * gn + j): its C slot and compute lane, from its first step to its copy back.
    std::vector<int> tile_slot(pl.rows.size() * pl.cols.size(), -1), tile_lane(tile_slot.size(), 0);
    for (int si = 0; si < static_cast<int>(s_.steps.size()); ++si) {
      const Step st = s_.steps[si];
      const Range ri = pl.rows[st.i], rj = pl.cols[st.j], rp = pl.ks[st.p];
      const std::size_t tile = static_cast<std::size_t>(st.i) * gn + st.j;
      if (st.p == 0) {  // a new tile: the next C slot, and the next compute lane
        tile_slot[tile] = c_next;
        c_next = (c_next + 1) % static_cast<int>(c_slots_.size());
        tile_lane[tile] = kLaneCompute + tiles_begun++ % std::max(1, pl.lanes);
      }
      const int c_slot = tile_slot[tile];
      const int lane = tile_lane[tile];
      int abuf = -1, bbuf = -1;
      if (pr_.product) {
        const int as = resident(a_occ, a_next, st.i * kp + st.p, [&](int slot) {
          const Shape2 sh = a_piece(pr_, ri.size, rp.size);
          const long long r0 = pr_.op_a == Op::N ? ri.begin : rp.begin, c0 = pr_.op_a == Op::N ? rp.begin : ri.begin;
          load(Mat::A, r0, c0, sh, a_slots_[slot], pr_.staged_a);
        });
        abuf = a_slots_[as];
        const int bs = resident(b_occ, b_next, st.p * gn + st.j, [&](int slot) {
          const Shape2 sh = b_piece(pr_, rp.size, rj.size);
          const long long r0 = pr_.op_b == Op::N ? rp.begin : rj.begin, c0 = pr_.op_b == Op::N ? rj.begin : rp.begin;
          load(Mat::B, r0, c0, sh, b_slots_[slot], pr_.staged_b);
        });
        bbuf = b_slots_[bs];
      }
      if (st.p == 0 && pr_.load_c) {
        load(Mat::C, ri.begin, rj.begin, {ri.size, rj.size}, c_slots_[c_slot], pr_.staged_c);
        if (pl.widened) {
          FlowOp op = make(OpKind::Widen, lane);
          op.c = c_slots_[c_slot];
          op.acc = acc_slots_[c_slot];
          op.tile_rows = ri.size;
          op.tile_cols = rj.size;
          const int idx = next_index();
          read(buf_hz_[op.c], op, idx);
          write_one(buf_hz_[op.acc], op, idx);
          push(std::move(op));
        }
      }
      const int cbuf = pl.widened ? acc_slots_[c_slot] : c_slots_[c_slot];
      {
        FlowOp op = make(OpKind::Gemm, lane);
        op.step = si;
        op.a = abuf;
        op.b = bbuf;
        op.c = cbuf;
        op.first = st.p == 0;
        const int idx = next_index();
        if (abuf >= 0) read(buf_hz_[abuf], op, idx);
        if (bbuf >= 0) read(buf_hz_[bbuf], op, idx);
        read_write(buf_hz_[cbuf], op, idx);
        if (first_gemm_ < 0) first_gemm_ = idx;
        push(std::move(op));
      }
      if (st.p + 1 == kp) {  // the tile is done: back to the host
        const int io = c_slots_[c_slot];
        if (pl.widened) {
          FlowOp op = make(OpKind::Narrow, lane);
          op.c = io;
          op.acc = acc_slots_[c_slot];
          op.tile_rows = ri.size;
          op.tile_cols = rj.size;
          const int idx = next_index();
          read(buf_hz_[op.acc], op, idx);
          write_one(buf_hz_[op.c], op, idx);
          push(std::move(op));
        }
        store(ri.begin, rj.begin, {ri.size, rj.size}, io);
      }
    }
    for (FlowOp& op : s_.ops) {  // sorted, without duplicates
      std::sort(op.deps.begin(), op.deps.end());
      op.deps.erase(std::unique(op.deps.begin(), op.deps.end()), op.deps.end());
    }
    return std::move(s_);
  }

 private:
  struct Hazard {
    std::vector<int> writers, readers;
  };

  static std::size_t pitch(const BufferShape& b) { return static_cast<std::size_t>(b.ld) * b.elem; }

  FlowOp make(OpKind k, int lane) {
    FlowOp op;
    op.kind = k;
    op.lane = lane;
    return op;
  }
  int next_index() const { return static_cast<int>(s_.ops.size()); }
  void push(FlowOp&& op) { s_.ops.push_back(std::move(op)); }

  static void append(std::vector<int>& to, const std::vector<int>& from) { to.insert(to.end(), from.begin(), from.end()); }
  // Reading waits for the writers; writing waits for every reader since the last write (which
  // themselves waited for the writers), or for the writers when nothing read.
  static void read(Hazard& h, FlowOp& op, int idx) {
    append(op.deps, h.writers);
    h.readers.push_back(idx);
  }
  static std::vector<int> begin_write(Hazard& h) {
    std::vector<int> d = h.readers.empty() ? h.writers : h.readers;
    h.writers.clear();
    h.readers.clear();
    return d;
  }
  static void write_one(Hazard& h, FlowOp& op, int idx) {
    append(op.deps, begin_write(h));
    h.writers.push_back(idx);
  }
  static void read_write(Hazard& h, FlowOp& op, int idx) {
    append(op.deps, h.writers);
    append(op.deps, h.readers);
    h.writers.assign(1, idx);
    h.readers.clear();
  }

  // The slot holding `piece`, loading it into the next slot of the ring when it is not resident.
  template <class Load>
  int resident(std::vector<int>& occ, int& next, int piece, Load&& load_into) {
    for (std::size_t s = 0; s < occ.size(); ++s)
      if (occ[s] == piece) return static_cast<int>(s);
    const int slot = next;
    next = (next + 1) % static_cast<int>(occ.size());
    occ[slot] = piece;
    load_into(slot);
    return slot;
  }

  // Host block (r0, c0) of shape sh of matrix m into device buffer buf: one copy from pinned
  // memory, or chunks of whole rows through the staging ring.
  void load(Mat m, long long r0, long long c0, Shape2 sh, int buf, bool staged) {
    const int elem = m == Mat::C ? pr_.out_bytes : pr_.in_bytes;
    const double bytes = static_cast<double>(sh.rows) * sh.width * elem;
    s_.h2d_bytes += bytes;
    if (first_gemm_ < 0) s_.first_load_bytes += bytes;
    const std::vector<int> hazards = begin_write(buf_hz_[buf]);
    const int chunk = staged ? chunk_rows(s_.buffers[buf].shape) : sh.rows;
    for (int r = 0; r < sh.rows; r += chunk) {
      const int rows = std::min(chunk, sh.rows - r);
      FlowOp h2d = make(OpKind::H2D, kLaneH2D);
      h2d.mat = m;
      h2d.row = r0 + r;
      h2d.col = c0;
      h2d.rows = rows;
      h2d.width = sh.width;
      h2d.buffer = buf;
      h2d.buffer_row = r;
      append(h2d.deps, hazards);
      if (staged) {
        const int slot = stage_in_next_;
        stage_in_next_ = (stage_in_next_ + 1) % s_.stage_in_slots;
        FlowOp in = h2d;
        in.kind = OpKind::StageIn;
        in.lane = kLaneStageIn;
        in.stage = slot;
        in.deps.clear();
        const int in_idx = next_index();
        write_one(stage_hz_[slot], in, in_idx);
        push(std::move(in));
        h2d.stage = slot;
        read(stage_hz_[slot], h2d, next_index());
      }
      buf_hz_[buf].writers.push_back(next_index());
      push(std::move(h2d));
    }
  }

  // Tile (r0, c0) of C from device buffer buf back to the host.
  void store(long long r0, long long c0, Shape2 sh, int buf) {
    s_.d2h_bytes += static_cast<double>(sh.rows) * sh.width * pr_.out_bytes;
    const bool staged = pr_.staged_c;
    const int chunk = staged ? chunk_rows(s_.buffers[buf].shape) : sh.rows;
    for (int r = 0; r < sh.rows; r += chunk) {
      const int rows = std::min(chunk, sh.rows - r);
      FlowOp d2h = make(OpKind::D2H, kLaneD2H);
      d2h.mat = Mat::C;
      d2h.row = r0 + r;
      d2h.col = c0;
      d2h.rows = rows;
      d2h.width = sh.width;
      d2h.buffer = buf;
      d2h.buffer_row = r;
      const int d2h_idx = next_index();
      read(buf_hz_[buf], d2h, d2h_idx);
      if (!staged) {
        push(std::move(d2h));
        continue;
      }
      const int slot = s_.stage_in_slots + stage_out_next_;
      stage_out_next_ = (stage_out_next_ + 1) % s_.stage_out_slots;
      d2h.stage = slot;
      write_one(stage_hz_[slot], d2h, d2h_idx);
      FlowOp out = d2h;
      out.kind = OpKind::StageOut;
      out.lane = kLaneStageOut;
      out.deps.clear();
      push(std::move(d2h));
      read(stage_hz_[slot], out, next_index());
      push(std::move(out));
    }
  }

  int chunk_rows(const BufferShape& b) const {
    const std::size_t p = pitch(b);
    return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(s_.stage_slot_bytes / p, std::numeric_limits<int>::max())));
  }

  const Problem& pr_;
  Schedule s_;
  SlotShapes shapes_;
  std::vector<int> a_slots_, b_slots_, c_slots_, acc_slots_;
  std::vector<Hazard> buf_hz_, stage_hz_;
  int stage_in_next_ = 0, stage_out_next_ = 0;
  int first_gemm_ = -1;
};

// ---------------------------------------------------------------------------------------------
// The estimator: a list-scheduling simulation of the operation list with nominal H100 rates.
// Coarse (no contention between concurrent kernels beyond a shared throughput, no copy-engine
// detail), but it ranks plans and gives the predictions the benchmark prints beside its measures.
// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// The planner
// ---------------------------------------------------------------------------------------------
inline double mat_bytes(const Problem& p, Mat m) {
  if (m == Mat::A) return static_cast<double>(p.m) * p.k * p.in_bytes;
  if (m == Mat::B) return static_cast<double>(p.k) * p.n * p.in_bytes;
  return static_cast<double>(p.m) * p.n * p.out_bytes;
}

// Two compute streams: one multiply runs while the next one's operands arrive. More only made the
// multiplies compete for the SMs (H100, 1024^3 fp32 pinned, blocks of 64 / 128 / 256 rows whose
// multiplies fill the GPU with k slices: 2 streams 270 / 241 / 259 us, 4 streams 281 / 249 / 265).
inline int auto_lanes(const Plan&) { return 2; }

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
  void consider(Plan pl) {
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
          Plan pl;
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
  Plan ring_plan(Order o, int mt, int nt, int kt) const {
    const Ring r = ring(mt, nt, kt);
    Plan pl;
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
  bool fits(const Plan& pl) const { return slot_shapes(p_, pl).device_bytes <= p_.budget; }

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
  double loaded_bytes(const Plan& pl) const {
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
    std::vector<Plan> cands;
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
    auto steps = [](const Plan& pl) { return static_cast<double>(pl.rows.size()) * pl.cols.size() * pl.ks.size(); };
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
  void consider_lazy_panel(const Plan& pl) {
    if (pl.ks.size() != 1) return;
    const bool a_whole = pl.order == Order::ColumnsOuter && pl.rows.size() == 1;
    const bool b_whole = pl.order == Order::RowsOuter && pl.cols.size() == 1;
    if (!a_whole && !b_whole) return;
    const int total = a_whole ? p_.m : p_.n;
    for (int parts : {4, 8, 16}) {
      const int b = block_for(total, parts);
      if (b >= total) continue;
      Plan v = pl;
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
    Plan whole;
    whole.rows = split_by(p_.m, p_.m);
    whole.cols = split_by(p_.n, p_.n);
    whole.ks = split_by(0, 1);
    whole.depth_c = 1;
    if (fits(whole)) {
      for (const auto& rows : row_options(p_.m, t_.block_rows, 64)) {
        Plan pl = whole;
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
        Plan pl = ring_plan(Order::ColumnsOuter, mt, nt, 1);
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

inline std::string describe(const Schedule& s) {
  const Plan& pl = s.plan;
  auto mib = [](double b) { return b / (1024.0 * 1024.0); };
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s, %s: %zu row blocks (up to %d rows) x %zu column blocks (up to %d) x %zu k slices (up to %d), "
                "slots A %d B %d C %d%s, %d compute streams, %zu steps, %zu operations; device %.1f MiB, pinned "
                "staging %.1f MiB; H2D %.1f MiB, D2H %.1f MiB; predicted %.3f ms",
                pl.in_core ? "in core" : "out of core", pl.by_slice ? "slice by slice" : to_string(pl.order), pl.rows.size(), max_size(pl.rows),
                pl.cols.size(), max_size(pl.cols), pl.ks.size(), max_size(pl.ks), pl.depth_a, pl.depth_b, pl.depth_c,
                pl.widened ? " (float accumulators)" : "", pl.lanes, s.steps.size(), s.ops.size(),
                mib(static_cast<double>(s.device_bytes)), mib(static_cast<double>(s.stage_bytes)), mib(s.h2d_bytes),
                mib(s.d2h_bytes), s.predicted_ms);
  return buf;
}

}  // namespace gemm::host::detail
