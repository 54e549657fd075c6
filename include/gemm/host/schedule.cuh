#pragma once
// A gemm::host call's Schedule: its plan (flow_plan.cuh) as an ordered list of operations (staging
// copies, host-to-device copies, multiplies, conversions, device-to-host copies), each on a lane (a
// stream, or a host thread for the staging copies) and each with the earlier operations it must
// wait for; Builder writes it. The executor (executor.cuh) maps lanes to streams and cross-lane
// dependencies to events; the host tests run the same list on the CPU in random orders that respect
// only those dependencies, and check every conflicting pair of operations is ordered.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>
#include "flow_plan.cuh"

namespace gemm::host::detail {

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
  FlowPlan plan;
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
  Builder(const Problem& pr, const FlowPlan& pl, const Tuning& tu) : pr_(pr), s_() {
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
    const FlowPlan& pl = s_.plan;
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

inline std::string describe(const Schedule& s) {
  const FlowPlan& pl = s.plan;
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
