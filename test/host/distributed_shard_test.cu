// gemm::distributed's shard and ring arithmetic (gemm/distributed/shard.hpp), on the host: odd
// sizes, sizes smaller than the number of ranks, 1 to 8 ranks. Every rank's rows, columns and
// offsets must cover each matrix exactly once (B of RowSplit: once per rank), and the ring must hand
// every rank every B block once, in the order its buffers expect.
#include <set>
#include <string>
#include <vector>
#include <gemm/distributed/shard.hpp>
#include "../catch.hpp"

namespace {

namespace gd = gemm::distributed;
using gemm::Op;

constexpr int kMaxRanks = 8;
const int kExtents[] = {0, 1, 2, 3, 5, 7, 8, 13, 64, 100, 127, 1000, 4097, 8191};

struct Shape {
  int m, n, k;
};
const Shape kShapes[] = {{1, 1, 1}, {2, 3, 5}, {7, 5, 3}, {13, 1, 17}, {1, 29, 2}, {37, 53, 71}, {64, 64, 64},
                         {0, 5, 3}, {4, 0, 6}, {5, 6, 0}, {129, 67, 250}};

// Stored rows x cols of a whole operand: op(A) is m x k, op(B) k x n (transposed when stored so).
void stored_dims(gd::Operand x, Op op, const Shape& s, int& rows, int& cols) {
  if (x == gd::Operand::C) {
    rows = s.m, cols = s.n;
    return;
  }
  const int r = x == gd::Operand::A ? s.m : s.k, c = x == gd::Operand::A ? s.k : s.n;
  rows = op == Op::N ? r : c;
  cols = op == Op::N ? c : r;
}

const char* operand_name(gd::Operand x) { return x == gd::Operand::A ? "A" : x == gd::Operand::B ? "B" : "C"; }

}  // namespace

TEST_CASE("partition covers an extent exactly once, in order, sizes within one", "[host][distributed]") {
  for (int extent : kExtents) {
    for (int p = 1; p <= kMaxRanks; ++p) {
      INFO("extent " << extent << ", " << p << " ranks");
      int next = 0, largest = 0, smallest = extent + 1;
      for (int r = 0; r < p; ++r) {
        const gd::Range range = gd::partition(extent, p, r);
        CHECK(range.offset == next);
        CHECK(range.size >= 0);
        next = range.offset + range.size;
        largest = range.size > largest ? range.size : largest;
        smallest = range.size < smallest ? range.size : smallest;
        // The first extent % p ranks hold the extra element.
        CHECK(range.size == extent / p + (r < extent % p ? 1 : 0));
      }
      CHECK(next == extent);
      CHECK(largest - smallest <= 1);
    }
  }
}

TEST_CASE("every algorithm's shards cover A, B and C exactly once (B of RowSplit once per rank)",
          "[host][distributed]") {
  for (gd::Algorithm alg : gd::kAlgorithms) {
    for (const Shape& s : kShapes) {
      for (int p = 1; p <= kMaxRanks; ++p) {
        for (gd::Operand x : {gd::Operand::A, gd::Operand::B, gd::Operand::C}) {
          for (Op op : {Op::N, Op::T}) {
            INFO(gd::to_string(alg) << " " << operand_name(x) << " op " << gemm::to_string(op) << ", m=" << s.m
                                    << " n=" << s.n << " k=" << s.k << ", " << p << " ranks");
            int rows = 0, cols = 0;
            stored_dims(x, op, s, rows, cols);
            std::vector<int> covered(static_cast<size_t>(rows) * cols, 0);
            bool inside = true;
            for (int r = 0; r < p; ++r) {
              const gd::Block b = gd::stored_block(alg, x, op, s.m, s.n, s.k, p, r);
              const gd::Block logical = gd::logical_block(alg, x, s.m, s.n, s.k, p, r);
              // Stored as the operand is: transposed for op T (C never).
              const bool t = x != gd::Operand::C && op == Op::T;
              CHECK(b.rows == (t ? logical.cols : logical.rows));
              CHECK(b.cols == (t ? logical.rows : logical.cols));
              CHECK(b.row == (t ? logical.col : logical.row));
              CHECK(b.col == (t ? logical.row : logical.col));
              inside = inside && b.row >= 0 && b.col >= 0 && b.rows >= 0 && b.cols >= 0 && b.row + b.rows <= rows &&
                       b.col + b.cols <= cols;
              if (!inside) break;
              for (int i = 0; i < b.rows; ++i)
                for (int j = 0; j < b.cols; ++j) ++covered[static_cast<size_t>(b.row + i) * cols + b.col + j];
            }
            REQUIRE(inside);
            const int times = alg == gd::Algorithm::RowSplit && x == gd::Operand::B ? p : 1;
            int wrong = 0;
            for (int c : covered) wrong += c != times;
            CHECK(wrong == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("C is split by rows the same way in every algorithm", "[host][distributed]") {
  for (const Shape& s : kShapes)
    for (int p = 1; p <= kMaxRanks; ++p)
      for (int r = 0; r < p; ++r) {
        const gd::Range rows = gd::partition(s.m, p, r);
        for (gd::Algorithm alg : gd::kAlgorithms) {
          const gd::Block c = gd::stored_block(alg, gd::Operand::C, Op::T, s.m, s.n, s.k, p, r);
          INFO(gd::to_string(alg) << " rank " << r << " of " << p);
          CHECK(c.row == rows.offset);
          CHECK(c.rows == rows.size);
          CHECK(c.col == 0);
          CHECK(c.cols == s.n);
        }
        // The k split of ReduceScatter: A's columns and B's rows of a rank are the same k range.
        const gd::Block a = gd::logical_block(gd::Algorithm::ReduceScatter, gd::Operand::A, s.m, s.n, s.k, p, r);
        const gd::Block b = gd::logical_block(gd::Algorithm::ReduceScatter, gd::Operand::B, s.m, s.n, s.k, p, r);
        CHECK(a.col == b.row);
        CHECK(a.cols == b.rows);
        // The all-gather's A rows are the rank's C rows.
        const gd::Block ag = gd::logical_block(gd::Algorithm::AllGather, gd::Operand::A, s.m, s.n, s.k, p, r);
        CHECK(ag.row == rows.offset);
        CHECK(ag.rows == rows.size);
      }
}

TEST_CASE("the all-gather ring gives every rank every B block once, each as its predecessor sent it",
          "[host][distributed]") {
  for (int p = 1; p <= kMaxRanks; ++p) {
    for (int r = 0; r < p; ++r) {
      INFO("rank " << r << " of " << p);
      std::set<int> seen;
      for (int s = 0; s < p; ++s) {
        INFO("step " << s);
        const gd::RingStep step = gd::ring_step(r, p, s);
        CHECK(step.block >= 0);
        CHECK(step.block < p);
        seen.insert(step.block);
        if (s == 0) CHECK(step.block == r);  // its own block first: no waiting
        CHECK(step.exchange == (s + 1 < p));
        if (!step.exchange) {
          CHECK(step.send_to == -1);
          CHECK(step.recv_from == -1);
          continue;
        }
        CHECK(step.send_to == (r + 1) % p);
        CHECK(step.recv_from == (r + p - 1) % p);
        // What arrives is what the next step multiplies...
        CHECK(step.recv_block == gd::ring_step(r, p, s + 1).block);
        // ... and what the predecessor multiplies (and sends) at this step; the successor receives
        // this rank's block.
        CHECK(gd::ring_step(step.recv_from, p, s).block == step.recv_block);
        CHECK(gd::ring_step(step.recv_from, p, s).send_to == r);
        CHECK(gd::ring_step(step.send_to, p, s).recv_block == step.block);
        CHECK(gd::ring_step(step.send_to, p, s).recv_from == r);
      }
      CHECK(seen.size() == static_cast<size_t>(p));
    }
  }
}

TEST_CASE("the ring's two buffers always hold the block a step multiplies and sends", "[host][distributed]") {
  // Simulates every rank's two receive buffers: step s receives into buffer s % 2 while the block
  // held since step s - 1 (in the other buffer, or the rank's own block at step 0) is multiplied and
  // sent on. A buffer is overwritten only two steps after it was filled, once it has been multiplied.
  for (int p = 1; p <= kMaxRanks; ++p) {
    std::vector<std::vector<int>> buffer(p, std::vector<int>(2, -1));
    for (int s = 0; s < p; ++s) {
      std::vector<int> sent(p, -1);
      for (int r = 0; r < p; ++r) {
        const gd::RingStep step = gd::ring_step(r, p, s);
        const int held = s == 0 ? r : buffer[r][(s - 1) % 2];
        INFO("rank " << r << " of " << p << ", step " << s);
        CHECK(held == step.block);
        if (step.exchange) sent[r] = held;
      }
      for (int r = 0; r < p; ++r) {
        const gd::RingStep step = gd::ring_step(r, p, s);
        if (!step.exchange) continue;
        CHECK((s - 1) % 2 != s % 2);  // never the buffer being multiplied and sent
        buffer[r][s % 2] = sent[step.recv_from];
      }
    }
  }
}

TEST_CASE("a B block on the wire: rows 16 bytes apart, only the block's span sent", "[host][distributed]") {
  for (const Shape& s : kShapes) {
    for (int p = 1; p <= kMaxRanks; ++p) {
      for (Op op : {Op::N, Op::T}) {
        for (int align : {1, 2, 4, 8}) {
          for (int q = 0; q < p; ++q) {
            INFO("n=" << s.n << " k=" << s.k << " op " << gemm::to_string(op) << ", block " << q << " of " << p
                      << ", align " << align);
            const gd::WireBlock w = gd::wire_block(op, s.n, s.k, p, q, align);
            const gd::Block b = gd::stored_block(gd::Algorithm::AllGather, gd::Operand::B, op, 0, s.n, s.k, p, q);
            CHECK(w.rows == b.rows);
            CHECK(w.cols == b.cols);
            CHECK(w.ld >= (b.cols > 1 ? b.cols : 1));
            CHECK(w.ld % align == 0);
            CHECK(w.ld < (b.cols > 1 ? b.cols : 1) + align);
            if (b.rows == 0 || b.cols == 0) {
              CHECK(w.count() == 0);
            } else {
              CHECK(w.count() == static_cast<size_t>(b.rows - 1) * w.ld + b.cols);
              CHECK(w.count() <= w.size());
            }
            CHECK(w.size() == static_cast<size_t>(b.rows) * w.ld);
          }
        }
      }
    }
  }
}

TEST_CASE("ReduceScatter's partial buffer: rows 16 bytes apart, each block's span", "[host][distributed]") {
  for (int n : kExtents) {
    for (int align : {2, 4}) {
      const long long ld = gd::partial_ld(n, align);
      CHECK(ld % align == 0);
      CHECK(ld >= (n > 1 ? n : 1));
      CHECK(ld < (n > 1 ? n : 1) + align);
      CHECK(gd::partial_count(0, n, ld) == 0);
      CHECK(gd::partial_count(3, 0, ld) == 0);
      if (n > 0) CHECK(gd::partial_count(3, n, ld) == static_cast<size_t>(2 * ld + n));
    }
  }
}

TEST_CASE("algorithm names", "[host][distributed]") {
  std::set<std::string> names;
  for (gd::Algorithm a : gd::kAlgorithms) names.insert(gd::to_string(a));
  CHECK(names == std::set<std::string>{"rowsplit", "allgather", "allgather_then_gemm", "reducescatter"});
}
