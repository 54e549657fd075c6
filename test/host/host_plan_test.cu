// gemm::host's planner and schedules, without a GPU: the tiling arithmetic (blocks, budgets,
// k slices), and every schedule run on the CPU in random orders that respect only its declared
// dependencies (and each lane's order), with a check that every two operations touching the same
// memory, one of them writing, are ordered. Small integer data keeps every sum exact, so the
// result must equal the reference bit for bit whatever the order.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include <gemm/host/planner.cuh>
#include "../catch.hpp"

namespace {

using namespace gemm::host::detail;
using gemm::Op;

Problem problem(int m, int n, int k, std::size_t budget, int in_bytes = 4, int out_bytes = 4) {
  Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.in_bytes = in_bytes;
  p.out_bytes = out_bytes;
  p.acc_bytes = out_bytes == 2 ? 4 : out_bytes;
  p.can_widen = out_bytes == 2;
  p.budget = budget;
  return p;
}

double bytes_of(const Problem& p, Mat m) { return mat_bytes(p, m); }

// ---- The CPU model of a schedule ----------------------------------------------------------------

struct Access {
  int space;  // 0: device buffer, 1: staging slot, 2: host C
  int id;
  long long lo, hi;          // element range (device buffer, staging slot)
  long long r0, r1, c0, c1;  // host C rectangle
  bool write;
};

std::vector<Access> accesses(const Schedule& s, const FlowOp& op) {
  std::vector<Access> v;
  auto buf_rows = [&](int b, long long r0, long long rows, bool w) {
    const long long ld = s.buffers[b].shape.ld;
    v.push_back({0, b, r0 * ld, (r0 + rows) * ld, 0, 0, 0, 0, w});
  };
  auto whole = [&](int b, bool w) { buf_rows(b, 0, std::max(1, s.buffers[b].shape.rows), w); };
  auto stage = [&](const FlowOp& o, bool w) {
    const long long ld = s.buffers[o.buffer].shape.ld;
    v.push_back({1, o.stage, 0, o.rows * ld, 0, 0, 0, 0, w});
  };
  auto host_c = [&](const FlowOp& o, bool w) {
    if (o.mat != Mat::C) return;  // A and B are only read
    v.push_back({2, 0, 0, 0, o.row, o.row + o.rows, o.col, o.col + o.width, w});
  };
  switch (op.kind) {
    case OpKind::StageIn:
      host_c(op, false);
      stage(op, true);
      break;
    case OpKind::H2D:
      if (op.stage >= 0) stage(op, false);
      else host_c(op, false);
      buf_rows(op.buffer, op.buffer_row, op.rows, true);
      break;
    case OpKind::D2H:
      buf_rows(op.buffer, op.buffer_row, op.rows, false);
      if (op.stage >= 0) stage(op, true);
      else host_c(op, true);
      break;
    case OpKind::StageOut:
      stage(op, false);
      host_c(op, true);
      break;
    case OpKind::Gemm:
      if (op.a >= 0) whole(op.a, false);
      if (op.b >= 0) whole(op.b, false);
      whole(op.c, true);
      break;
    case OpKind::Widen:
      whole(op.c, false);
      whole(op.acc, true);
      break;
    case OpKind::Narrow:
      whole(op.acc, false);
      whole(op.c, true);
      break;
  }
  return v;
}

bool conflict(const Access& x, const Access& y) {
  if (!(x.write || y.write) || x.space != y.space || x.id != y.id) return false;
  if (x.space == 2) return x.r0 < y.r1 && y.r0 < x.r1 && x.c0 < y.c1 && y.c0 < x.c1;
  return x.lo < y.hi && y.lo < x.hi;
}

// Predecessors of each operation: its dependencies and the previous operation of its lane.
std::vector<std::vector<int>> predecessors(const Schedule& s) {
  std::vector<std::vector<int>> pred(s.ops.size());
  std::vector<int> last(kMaxLanes, -1);
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    pred[i] = s.ops[i].deps;
    if (last[s.ops[i].lane] >= 0) pred[i].push_back(last[s.ops[i].lane]);
    last[s.ops[i].lane] = static_cast<int>(i);
  }
  return pred;
}

// Every conflicting pair ordered by the happens-before relation; returns a description of the
// first unordered pair, or "".
std::string race_check(const Schedule& s) {
  const std::size_t n = s.ops.size(), words = (n + 63) / 64;
  std::vector<std::uint64_t> hb(n * words, 0);  // hb[i] has bit j when j happens before i
  const auto pred = predecessors(s);
  for (std::size_t i = 0; i < n; ++i)
    for (int p : pred[i]) {
      if (p < 0 || static_cast<std::size_t>(p) >= i) return "operation " + std::to_string(i) + " depends on a later one";
      hb[i * words + p / 64] |= std::uint64_t(1) << (p % 64);
      for (std::size_t w = 0; w < words; ++w) hb[i * words + w] |= hb[p * words + w];
    }
  std::vector<std::vector<Access>> acc(n);
  for (std::size_t i = 0; i < n; ++i) acc[i] = accesses(s, s.ops[i]);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j) {
      bool c = false;
      for (const Access& x : acc[i])
        for (const Access& y : acc[j]) c = c || conflict(x, y);
      if (c && !(hb[i * words + j / 64] >> (j % 64) & 1)) {
        std::ostringstream o;
        o << "unordered conflict: op " << j << " (" << to_string(s.ops[j].kind) << ", lane " << s.ops[j].lane
          << ") and op " << i << " (" << to_string(s.ops[i].kind) << ", lane " << s.ops[i].lane << ")";
        return o.str();
      }
    }
  return "";
}

// Host matrices of small integers, and the schedule executed on the CPU in a random order.
struct Sim {
  const Schedule& s;
  const Problem& p;
  int lda, ldb, ldc;
  std::vector<double> A, B, C;
  double alpha = 2, beta = -1;
  std::vector<std::vector<double>> dev, stage;

  Sim(const Schedule& sc, std::mt19937_64& rng, int pad) : s(sc), p(sc.problem) {
    const bool na = p.op_a == Op::N, nb = p.op_b == Op::N;
    lda = (na ? p.k : p.m) + pad;
    ldb = (nb ? p.n : p.k) + pad;
    ldc = p.n + pad;
    A.resize(static_cast<std::size_t>(std::max(1, na ? p.m : p.k)) * std::max(1, lda));
    B.resize(static_cast<std::size_t>(std::max(1, nb ? p.k : p.n)) * std::max(1, ldb));
    C.resize(static_cast<std::size_t>(p.m) * ldc);
    std::uniform_int_distribution<int> d(-3, 3);
    for (double& x : A) x = d(rng);
    for (double& x : B) x = d(rng);
    for (double& x : C) x = d(rng);
    if (!p.load_c) beta = 0;
    for (const Buffer& b : s.buffers)
      dev.emplace_back(static_cast<std::size_t>(std::max(1, b.shape.rows)) * b.shape.ld, 1e300);  // garbage
    for (int i = 0; i < s.stage_in_slots + s.stage_out_slots; ++i)
      stage.emplace_back(s.stage_slot_bytes / 1, 1e300);  // indexed by element, sized generously
  }

  double a(long long i, long long q) const { return p.op_a == Op::N ? A[i * lda + q] : A[q * lda + i]; }
  double b(long long q, long long j) const { return p.op_b == Op::N ? B[q * ldb + j] : B[j * ldb + q]; }
  std::vector<double>& host(Mat m) { return m == Mat::A ? A : m == Mat::B ? B : C; }
  int host_ld(Mat m) const { return m == Mat::A ? lda : m == Mat::B ? ldb : ldc; }

  std::vector<double> reference() const {
    std::vector<double> r = C;
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        double acc = 0;
        if (p.product)
          for (int q = 0; q < p.k; ++q) acc += a(i, q) * b(q, j);
        r[static_cast<std::size_t>(i) * ldc + j] = alpha * acc + (beta != 0 ? beta * C[static_cast<std::size_t>(i) * ldc + j] : 0);
      }
    return r;
  }

  void exec(const FlowOp& op) {
    switch (op.kind) {
      case OpKind::StageIn:
      case OpKind::StageOut:
      case OpKind::H2D:
      case OpKind::D2H: {
        const long long ld_dev = s.buffers[op.buffer].shape.ld;
        std::vector<double>& h = host(op.mat);
        const long long hld = host_ld(op.mat);
        for (int r = 0; r < op.rows; ++r)
          for (int c = 0; c < op.width; ++c) {
            double& hv = h[(op.row + r) * hld + op.col + c];
            double& dv = dev[op.buffer][(op.buffer_row + r) * ld_dev + c];
            double* sv = op.stage >= 0 ? &stage[op.stage][r * ld_dev + c] : nullptr;
            if (op.kind == OpKind::StageIn) *sv = hv;
            else if (op.kind == OpKind::StageOut) hv = *sv;
            else if (op.kind == OpKind::H2D) dv = sv ? *sv : hv;
            else (sv ? *sv : hv) = dv;
          }
        break;
      }
      case OpKind::Widen:
      case OpKind::Narrow: {
        const auto& io = s.buffers[op.c].shape;
        const auto& ac = s.buffers[op.acc].shape;
        for (int r = 0; r < op.tile_rows; ++r)
          for (int c = 0; c < op.tile_cols; ++c) {
            double& x = dev[op.c][r * io.ld + c];
            double& y = dev[op.acc][r * ac.ld + c];
            if (op.kind == OpKind::Widen) y = x;
            else x = y;
          }
        break;
      }
      case OpKind::Gemm: {
        const Step st = s.steps[op.step];
        const Range ri = s.plan.rows[st.i], rj = s.plan.cols[st.j], rp = s.plan.ks[st.p];
        const auto& cs = s.buffers[op.c].shape;
        const double bt = op.first ? beta : 1.0;
        for (int i = 0; i < ri.size; ++i)
          for (int j = 0; j < rj.size; ++j) {
            double acc = 0;
            if (p.product) {
              const auto& as = s.buffers[op.a].shape;
              const auto& bs = s.buffers[op.b].shape;
              for (int q = 0; q < rp.size; ++q) {
                const double av = p.op_a == Op::N ? dev[op.a][i * as.ld + q] : dev[op.a][q * as.ld + i];
                const double bv = p.op_b == Op::N ? dev[op.b][q * bs.ld + j] : dev[op.b][j * bs.ld + q];
                acc += av * bv;
              }
            }
            double& cv = dev[op.c][i * cs.ld + j];
            cv = alpha * acc + (bt != 0 ? bt * cv : 0.0);
          }
        break;
      }
    }
  }

  // Runs every operation once, each chosen at random among those whose predecessors are done.
  void run(std::mt19937_64& rng) {
    const auto pred = predecessors(s);
    std::vector<char> done(s.ops.size(), 0);
    std::vector<int> ready;
    std::size_t finished = 0;
    auto is_ready = [&](std::size_t i) {
      if (done[i]) return false;
      for (int q : pred[i])
        if (!done[q]) return false;
      return true;
    };
    while (finished < s.ops.size()) {
      ready.clear();
      for (std::size_t i = 0; i < s.ops.size(); ++i)
        if (is_ready(i)) ready.push_back(static_cast<int>(i));
      REQUIRE(!ready.empty());
      const int i = ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng)];
      exec(s.ops[i]);
      done[i] = 1;
      ++finished;
    }
  }
};

// Structural checks: every multiply once, every element of C copied back exactly once, blocks
// inside their matrices and buffers, staged chunks inside their slots, budget respected.
void check_structure(const Schedule& s) {
  const Problem& p = s.problem;
  const FlowPlan& pl = s.plan;
  INFO(describe(s));
  CHECK(s.device_bytes <= p.budget);
  CHECK(s.device_bytes == slot_shapes(p, pl).device_bytes);
  long long steps = 0;
  std::vector<int> seen(pl.rows.size() * pl.cols.size() * pl.ks.size(), 0);
  for (const Step& st : s.steps) {
    ++seen[(static_cast<std::size_t>(st.i) * pl.cols.size() + st.j) * pl.ks.size() + st.p];
    ++steps;
  }
  CHECK(steps == static_cast<long long>(seen.size()));
  CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  std::vector<int> c_written(static_cast<std::size_t>(p.m) * p.n, 0);
  for (const FlowOp& op : s.ops) {
    CHECK(op.lane >= 0);
    CHECK(op.lane < kMaxLanes);
    if (op.kind == OpKind::Gemm || op.kind == OpKind::Widen || op.kind == OpKind::Narrow) {
      CHECK(op.lane >= kLaneCompute);
      CHECK(op.lane < kLaneCompute + pl.lanes);
      continue;
    }
    const long long rows = op.mat == Mat::A ? (p.op_a == Op::N ? p.m : p.k)
                           : op.mat == Mat::B ? (p.op_b == Op::N ? p.k : p.n) : p.m;
    const long long cols = op.mat == Mat::A ? (p.op_a == Op::N ? p.k : p.m)
                           : op.mat == Mat::B ? (p.op_b == Op::N ? p.n : p.k) : p.n;
    CHECK(op.row >= 0);
    CHECK(op.row + op.rows <= rows);
    CHECK(op.col >= 0);
    CHECK(op.col + op.width <= cols);
    const BufferShape& b = s.buffers[op.buffer].shape;
    CHECK(op.buffer_row + op.rows <= b.rows);
    CHECK(op.width <= b.ld);
    CHECK(b.ld % std::max(1, 16 / b.elem) == 0);  // 16-byte device rows
    if (op.stage >= 0) {
      CHECK(static_cast<std::size_t>(op.rows) * b.ld * b.elem <= s.stage_slot_bytes);
      const bool out = op.kind == OpKind::D2H || op.kind == OpKind::StageOut;
      CHECK((out ? op.stage >= s.stage_in_slots : op.stage < s.stage_in_slots));
      CHECK(op.stage < s.stage_in_slots + s.stage_out_slots);
    }
    if (op.mat == Mat::C && ((op.kind == OpKind::D2H && op.stage < 0) || op.kind == OpKind::StageOut))
      for (int r = 0; r < op.rows; ++r)
        for (int c = 0; c < op.width; ++c) ++c_written[static_cast<std::size_t>(op.row + r) * p.n + op.col + c];
    const bool staged = op.mat == Mat::A ? p.staged_a : op.mat == Mat::B ? p.staged_b : p.staged_c;
    if (op.kind == OpKind::H2D || op.kind == OpKind::D2H) CHECK((op.stage >= 0) == staged);
  }
  CHECK(std::all_of(c_written.begin(), c_written.end(), [](int c) { return c == 1; }));
  for (std::size_t i = 0; i < s.buffers.size(); ++i) {
    CHECK(s.buffers[i].offset % kBufferAlign == 0);
    CHECK(s.buffers[i].shape.bytes % kBufferAlign == 0);
    if (i + 1 < s.buffers.size()) CHECK(s.buffers[i].offset + s.buffers[i].shape.bytes == s.buffers[i + 1].offset);
  }
}

void check_schedule(const Schedule& s, std::mt19937_64& rng, int orders = 3) {
  check_structure(s);
  const std::string race = race_check(s);
  INFO(describe(s));
  CHECK(race == "");
  for (int o = 0; o < orders; ++o) {
    Sim sim(s, rng, static_cast<int>(rng() % 3));
    const std::vector<double> want = sim.reference();
    sim.run(rng);
    long long wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) wrong += sim.C[i] != want[i];  // padding included: untouched
    CHECK(wrong == 0);
  }
}

}  // namespace

TEST_CASE("host plan: ranges, tapering and steps", "[host][host_flow]") {
  auto r = split_by(10, 4);
  REQUIRE(r.size() == 3);
  CHECK((r[0].begin == 0 && r[0].size == 4 && r[2].begin == 8 && r[2].size == 2));
  CHECK(split_by(0, 4).size() == 1);
  CHECK(split_by(5, 100).size() == 1);
  auto t = split_tapered(1024, 128);  // 8 blocks: the first and last halved
  REQUIRE(t.size() == 10);
  CHECK((t.front().size == 64 && t[1].size == 64 && t[2].size == 128 && t.back().size == 64));
  int covered = 0;
  for (const Range& x : t) {
    CHECK(x.begin == covered);
    covered += x.size;
  }
  CHECK(covered == 1024);
  // Interleaved with one column block: B first, then row blocks in order.
  FlowPlan pl;
  pl.rows = split_by(300, 100);
  pl.cols = split_by(50, 50);
  pl.ks = split_by(40, 40);
  auto st = make_steps(pl);
  REQUIRE(st.size() == 3);
  CHECK((st[0].i == 0 && st[1].i == 1 && st[2].i == 2));
  // Two column blocks, four row blocks: A and B blocks in proportion, each tile once.
  pl.rows = split_by(400, 100);
  pl.cols = split_by(100, 50);
  pl.ks = split_by(40, 20);
  st = make_steps(pl);
  CHECK(st.size() == 16);
  CHECK((st[0].i == 0 && st[0].j == 0 && st[0].p == 0 && st[1].p == 1));
  // Slice by slice: the same tiles in the same order, every tile's slice 0 before any slice 1.
  pl.by_slice = true;
  auto by_slice = make_steps(pl);
  REQUIRE(by_slice.size() == 16);
  for (int q = 0; q < 8; ++q) {
    CHECK((by_slice[q].p == 0 && by_slice[q + 8].p == 1));
    CHECK((by_slice[q].i == st[2 * q].i && by_slice[q].j == st[2 * q].j));
    CHECK((by_slice[q + 8].i == st[2 * q].i && by_slice[q + 8].j == st[2 * q].j));
  }
  CHECK(block_for(1000, 8) == 128);
  CHECK(block_for(8192, 8) == 1024);
  CHECK(block_for(7, 3) == 3);
}

TEST_CASE("host plan: in core when everything fits, each operand copied once", "[host][host_flow]") {
  Problem p = problem(1024, 1024, 1024, std::size_t(1) << 30);
  PlanResult r = make_schedule(p, Tuning{});
  REQUIRE(r.ok);
  const Schedule& s = r.schedule;
  INFO(describe(s));
  CHECK(s.plan.in_core);
  CHECK(s.h2d_bytes == bytes_of(p, Mat::A) + bytes_of(p, Mat::B));
  CHECK(s.d2h_bytes == bytes_of(p, Mat::C));
  CHECK(s.plan.rows.size() >= 2);  // pipelined
  CHECK(s.predicted_ms > 0.15);
  CHECK(s.predicted_ms < 0.4);
  // beta != 0: C goes in too.
  p.load_c = true;
  r = make_schedule(p, Tuning{});
  REQUIRE(r.ok);
  CHECK(r.schedule.h2d_bytes == bytes_of(p, Mat::A) + bytes_of(p, Mat::B) + bytes_of(p, Mat::C));
  // Forced blocks.
  Tuning t;
  t.block_rows = 100;
  t.k_slices = 1;
  r = make_schedule(p, t);
  REQUIRE(r.ok);
  CHECK(r.schedule.plan.rows.size() == 11);
  CHECK(r.schedule.plan.ks.size() == 1);
}

TEST_CASE("host plan: pageable operands go through staging on the calling thread", "[host][host_flow]") {
  Problem p = problem(1024, 1024, 1024, std::size_t(1) << 30);
  p.staged_a = p.staged_b = p.staged_c = true;
  const PlanResult r = make_schedule(p, Tuning{});
  REQUIRE(r.ok);
  INFO(describe(r.schedule));
  // C leaves block by block: at least 4 row blocks (measured on an H100: 1 or 2 blocks leave a
  // serial tail; 4 x 1 was the fastest of 1, 2, 4, 8 blocks with 1 or 2 k slices).
  CHECK(r.schedule.plan.rows.size() >= 4);
  // k slices double the staging copies of A for no gain here (measured: 8 row blocks with 2 k
  // slices 0.94-1.00 ms, with 1 0.72-0.83).
  CHECK(r.schedule.plan.ks.size() == 1);
  CHECK(r.schedule.stage_bytes > 0);
  // The staging copies and the enqueues share the calling thread: the estimate is at least the
  // staged bytes at the nominal host copy rate (12 MiB at 40 GB/s).
  CHECK(r.schedule.predicted_ms > 12.0 * (1 << 20) / 40e6);
  // Forced shapes still win over the rule.
  Tuning t;
  t.block_rows = 1024;
  const PlanResult one = make_schedule(p, t);
  REQUIRE(one.ok);
  CHECK(one.schedule.plan.rows.size() == 1);
  // A matrix of few rows makes the blocks it can.
  const PlanResult small = make_schedule([&] { Problem q = p; q.m = 100; return q; }(), Tuning{});
  REQUIRE(small.ok);
  CHECK(small.schedule.plan.rows.size() == 1);
}

TEST_CASE("host plan: budgets below the operands stream tiles within the budget", "[host][host_flow]") {
  std::mt19937_64 rng(7);
  const std::size_t budgets[] = {std::size_t(40) << 20, std::size_t(16) << 20, std::size_t(4) << 20,
                                 std::size_t(1) << 20, 256u << 10};
  for (std::size_t b : budgets) {
    Problem p = problem(2048, 2048, 2048, b);
    PlanResult r = make_schedule(p, Tuning{});
    INFO("budget " << b);
    REQUIRE(r.ok);
    const Schedule& s = r.schedule;
    INFO(describe(s));
    CHECK(!s.plan.in_core);
    CHECK(s.device_bytes <= b);
    CHECK(s.h2d_bytes >= bytes_of(p, Mat::A) + bytes_of(p, Mat::B));
    CHECK(s.d2h_bytes == bytes_of(p, Mat::C));
    check_structure(s);
  }
  // 8192^3 bf16: 384 MiB of operands. A 1 GiB budget holds them (in core); 256 MiB streams a B
  // panel of half the columns while A goes through twice.
  Problem p = problem(8192, 8192, 8192, std::size_t(1) << 30, 2, 2);
  PlanResult r = make_schedule(p, Tuning{});
  REQUIRE(r.ok);
  CHECK(r.schedule.plan.in_core);
  p.budget = std::size_t(256) << 20;
  r = make_schedule(p, Tuning{});
  REQUIRE(r.ok);
  INFO(describe(r.schedule));
  CHECK(!r.schedule.plan.in_core);
  CHECK(r.schedule.h2d_bytes <= 1.5 * (bytes_of(p, Mat::A) + bytes_of(p, Mat::B)) + 1);
  // All of A stays, in row blocks loaded as the first column pass reaches them: each operand
  // copied once, and the first multiply waits for one row block and one B panel, not all of A.
  const FlowPlan& pl = r.schedule.plan;
  CHECK(pl.order == Order::ColumnsOuter);
  CHECK(pl.rows.size() > 1);
  CHECK(pl.depth_a == static_cast<int>(pl.rows.size()));
  CHECK(r.schedule.h2d_bytes == bytes_of(p, Mat::A) + bytes_of(p, Mat::B));
  CHECK(r.schedule.first_load_bytes < bytes_of(p, Mat::A) / 2);
}

TEST_CASE("host plan: an operand that stays whole, loaded block by block, runs in any order", "[host][host_flow]") {
  std::mt19937_64 rng(11);
  for (Order o : {Order::ColumnsOuter, Order::RowsOuter})
    for (bool staged : {false, true}) {
      Problem p = problem(150, 170, 90, std::size_t(1) << 30);
      p.load_c = true;
      p.staged_a = p.staged_b = p.staged_c = staged;
      FlowPlan pl;
      pl.order = o;
      pl.rows = o == Order::ColumnsOuter ? split_by(p.m, 40) : split_by(p.m, 64);  // 4 staying row blocks of A, or
      pl.cols = o == Order::ColumnsOuter ? split_by(p.n, 64) : split_by(p.n, 50);  // 4 staying column blocks of B
      pl.ks = split_by(p.k, p.k);
      pl.depth_a = o == Order::ColumnsOuter ? static_cast<int>(pl.rows.size()) : 2;
      pl.depth_b = o == Order::RowsOuter ? static_cast<int>(pl.cols.size()) : 2;
      pl.depth_c = 2;
      pl.lanes = 2;
      Tuning t;
      t.chunk_bytes = 4096;
      const Schedule s = Builder(p, pl, t).build();
      INFO(describe(s));
      CHECK(s.h2d_bytes == bytes_of(p, Mat::A) + bytes_of(p, Mat::B) + bytes_of(p, Mat::C));
      check_schedule(s, rng, 4);
    }
}

TEST_CASE("host plan: k split, with float accumulators for 16-bit C", "[host][host_flow]") {
  Tuning t;
  t.k_slices = 4;
  Problem p = problem(256, 256, 1000, std::size_t(1) << 30, 2, 2);
  PlanResult r = make_schedule(p, t);
  REQUIRE(r.ok);
  CHECK(r.schedule.plan.ks.size() == 4);
  CHECK(r.schedule.plan.widened);
  int widen = 0, narrow = 0;
  for (const FlowOp& op : r.schedule.ops) {
    widen += op.kind == OpKind::Widen;
    narrow += op.kind == OpKind::Narrow;
  }
  CHECK(widen == 0);  // beta == 0: nothing to widen
  CHECK(narrow == static_cast<int>(r.schedule.plan.rows.size() * r.schedule.plan.cols.size()));
  p.load_c = true;
  r = make_schedule(p, t);
  REQUIRE(r.ok);
  widen = 0;
  for (const FlowOp& op : r.schedule.ops) widen += op.kind == OpKind::Widen;
  CHECK(widen == static_cast<int>(r.schedule.plan.rows.size() * r.schedule.plan.cols.size()));
  // fp32 C: no accumulators.
  r = make_schedule(problem(256, 256, 1000, std::size_t(1) << 30), t);
  REQUIRE(r.ok);
  CHECK(!r.schedule.plan.widened);
  // k_slices = 1 forbids a split even when only a split would fit.
  Tuning none;
  none.k_slices = 1;
  Problem big = problem(64, 64, 100000, 256u << 10);  // one row of A and one column of B: 800 KB at k = 100000
  CHECK(!make_schedule(big, none).ok);
  PlanResult split = make_schedule(big, Tuning{});
  REQUIRE(split.ok);
  CHECK(split.schedule.plan.ks.size() > 1);
  CHECK(split.schedule.device_bytes <= big.budget);
}

TEST_CASE("host plan: the smallest budgets", "[host][host_flow]") {
  std::mt19937_64 rng(3);
  // 64^3 fp32: a 256-byte slot holds 64 elements, so the smallest budget streams tiny tiles.
  Problem p = problem(64, 64, 64, 0);
  CHECK(min_budget(p) == 6 * kBufferAlign);
  p.budget = min_budget(p);
  PlanResult r = make_schedule(p, Tuning{});
  REQUIRE(r.ok);
  CHECK(r.schedule.steps.size() > 100);
  CHECK(r.schedule.device_bytes <= p.budget);
  check_schedule(r.schedule, rng, 1);
  p.budget = 700;  // not two slots apiece
  CHECK(!make_schedule(p, Tuning{}).ok);
  // A small problem fits a small budget whole.
  Problem tiny = problem(5, 7, 3, 3 * kBufferAlign);
  r = make_schedule(tiny, Tuning{});
  REQUIRE(r.ok);
  CHECK(r.schedule.steps.size() == 1);
  // 16-bit C: two float accumulators more.
  CHECK(min_budget(problem(5, 7, 3, 0, 2, 2)) == 8 * kBufferAlign);
  // More than kMaxSteps multiplies: refused.
  Problem huge = problem(4096, 4096, 4096, 64u << 10);
  CHECK(!make_schedule(huge, Tuning{}).ok);
}

TEST_CASE("host plan: schedules run in any order the dependencies allow give the exact product", "[host][host_flow]") {
  std::mt19937_64 rng(12345);
  int checked = 0, in_core = 0, out_of_core = 0, staged = 0, split = 0, widened = 0, by_slice = 0;
  for (int iter = 0; iter < 200; ++iter) {
    Problem p;
    p.m = 1 + static_cast<int>(rng() % 70);
    p.n = 1 + static_cast<int>(rng() % 70);
    p.k = static_cast<int>(rng() % 60);
    p.op_a = rng() % 2 ? Op::T : Op::N;
    p.op_b = rng() % 2 ? Op::T : Op::N;
    const int type = static_cast<int>(rng() % 3);  // fp32, fp64, bf16 with bf16 C
    p.in_bytes = type == 0 ? 4 : type == 1 ? 8 : 2;
    p.out_bytes = p.in_bytes;
    p.acc_bytes = type == 2 ? 4 : p.out_bytes;
    p.can_widen = type == 2 && rng() % 4 != 0;
    p.product = p.k > 0 && rng() % 8 != 0;
    if (!p.product) p.k = 0;
    p.load_c = rng() % 2;
    p.staged_a = rng() % 2;
    p.staged_b = rng() % 2;
    p.staged_c = rng() % 2;
    const std::size_t full = static_cast<std::size_t>(p.m + p.k + 16) * (p.n + p.k + 16) * 16;
    const std::size_t budgets[] = {full * 4, full / 4, full / 16, 2048, min_budget(p) + (rng() % 1024)};
    p.budget = budgets[rng() % 5];
    Tuning t;
    t.chunk_bytes = 256 + rng() % 2048;  // small slots: several chunks per piece
    t.stage_slots = 1 + static_cast<int>(rng() % 4);
    if (rng() % 3 == 0) t.k_slices = 1 + static_cast<int>(rng() % 4);
    if (rng() % 4 == 0) t.lanes = 1 + static_cast<int>(rng() % 4);
    if (rng() % 4 == 0) t.block_rows = 1 + static_cast<int>(rng() % 40);
    if (rng() % 3 == 0) {
      t.by_slice = static_cast<int>(rng() % 2);
      if (t.by_slice == 1 && t.k_slices == 0) t.k_slices = 2 + static_cast<int>(rng() % 3);
    }
    PlanResult r = make_schedule(p, t);
    INFO("m=" << p.m << " n=" << p.n << " k=" << p.k << " ops " << (p.op_a == Op::N ? "N" : "T")
              << (p.op_b == Op::N ? "N" : "T") << " elem " << p.in_bytes << "/" << p.out_bytes << " product "
              << p.product << " load_c " << p.load_c << " staged " << p.staged_a << p.staged_b << p.staged_c
              << " budget " << p.budget << " k_slices " << t.k_slices << " by_slice " << t.by_slice);
    if (!r.ok) {
      CHECK((p.budget < min_budget(p) || t.k_slices > 0));  // only budgets below min_budget or forced splits fail
      continue;
    }
    check_schedule(r.schedule, rng, 2);
    ++checked;
    in_core += r.schedule.plan.in_core;
    out_of_core += !r.schedule.plan.in_core;
    staged += r.schedule.stage_bytes > 0;
    split += r.schedule.plan.ks.size() > 1;
    widened += r.schedule.plan.widened;
    by_slice += r.schedule.plan.by_slice;
  }
  // The random problems reach every kind of plan.
  CHECK(checked > 100);
  CHECK(in_core > 10);
  CHECK(out_of_core > 10);
  CHECK(staged > 10);
  CHECK(split > 10);
  CHECK(widened > 2);
  CHECK(by_slice > 5);
}

TEST_CASE("host plan: the estimator's predictions for the benchmark's flows", "[.predictions]") {
  struct Row {
    const char* name;
    Problem p;
  };
  std::vector<Row> rows;
  Problem f = problem(1024, 1024, 1024, std::size_t(60) << 30);
  rows.push_back({"1024^3 fp32 pinned", f});
  f.staged_a = f.staged_b = f.staged_c = true;
  rows.push_back({"1024^3 fp32 pageable", f});
  Problem g = problem(8192, 8192, 8192, std::size_t(60) << 30);
  rows.push_back({"8192^3 fp32 pinned", g});
  Problem h = problem(8192, 8192, 8192, std::size_t(1) << 30, 2, 2);
  h.tflops = 650;
  rows.push_back({"8192^3 bf16 pinned, 1 GiB", h});
  h.budget = std::size_t(256) << 20;
  rows.push_back({"8192^3 bf16 pinned, 256 MiB", h});
  for (const Row& r : rows) {
    PlanResult pr = make_schedule(r.p, Tuning{});
    REQUIRE(pr.ok);
    const double floor = std::max(pr.schedule.h2d_bytes, pr.schedule.d2h_bytes) / 48e6;  // ms at 48 GB/s
    std::printf("%-30s predicted %8.3f ms, copy floor %8.3f ms (48 GB/s), first load %.1f MiB\n  %s\n", r.name,
                pr.schedule.predicted_ms, floor, pr.schedule.first_load_bytes / 1048576.0, describe(pr.schedule).c_str());
  }
}
