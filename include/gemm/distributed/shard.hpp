#pragma once
// gemm::distributed's arithmetic: which piece of each matrix a rank owns, the all-gather ring's
// schedule, and how a B block travels. Host code with no CUDA or NCCL calls, so the host tests check
// it without a GPU; gemm/distributed/gemm.cuh is the API built on it.
//
// The problem is the single-GPU one, C (m x n, row-major) = alpha * op(A) * op(B) + beta * C with
// op(A) m x k and op(B) k x n, spread over p ranks. Every algorithm splits C by rows: rank r owns
// rows partition(m, p, r) of C. They differ in how A and B are spread:
//
//   algorithm          op(A) on rank r             op(B) on rank r              communication
//   RowSplit           rows partition(m, p, r)     all of it (replicated)       none
//   AllGather          rows partition(m, p, r)     columns partition(n, p, r)   B's column blocks, ring
//   AllGatherThenGemm  rows partition(m, p, r)     columns partition(n, p, r)   B's column blocks, at once
//   ReduceScatter      columns partition(k, p, r)  rows partition(k, p, r)      m x n partial sums
//
// A rank's shard is stored like the whole operand: for op N the block of op(X) itself, for op T its
// transpose (a transposed operand's row block is a column block of what is stored). stored_block()
// gives its rows x cols and where it sits in the whole stored matrix; a Shard is the rank's pointer
// to it.
#include <cstddef>
#include <type_traits>
#include "../types.cuh"

namespace gemm::distributed {

// One rank's piece of a matrix, as stored: rows x cols, row-major, rows `ld` elements apart.
template <class E>
struct Shard {
  E* data = nullptr;
  int rows = 0, cols = 0;
  int ld = 1;

  constexpr Shard() = default;
  constexpr Shard(E* data_, int rows_, int cols_, int ld_) : data(data_), rows(rows_), cols(cols_), ld(ld_) {}
  template <class F, std::enable_if_t<std::is_convertible_v<F*, E*>, int> = 0>
  constexpr Shard(const Shard<F>& other) : data(other.data), rows(other.rows), cols(other.cols), ld(other.ld) {}
};

enum class Algorithm { RowSplit, AllGather, AllGatherThenGemm, ReduceScatter };

constexpr const char* to_string(Algorithm a) {
  switch (a) {
    case Algorithm::RowSplit: return "rowsplit";
    case Algorithm::AllGather: return "allgather";
    case Algorithm::AllGatherThenGemm: return "allgather_then_gemm";
    case Algorithm::ReduceScatter: return "reducescatter";
  }
  return "unknown";
}

constexpr Algorithm kAlgorithms[] = {Algorithm::RowSplit, Algorithm::AllGather, Algorithm::AllGatherThenGemm,
                                     Algorithm::ReduceScatter};

enum class Operand { A, B, C };

// [offset, offset + size) of one dimension.
struct Range {
  int offset = 0;
  int size = 0;
};

// The block partition of `extent` over `ranks`: every rank gets extent / ranks, and the first
// extent % ranks ranks one more. Any extent >= 0 (ranks with nothing get size 0), ranks >= 1.
constexpr Range partition(int extent, int ranks, int rank) {
  const int base = extent / ranks, extra = extent % ranks;
  return {rank * base + (rank < extra ? rank : extra), base + (rank < extra ? 1 : 0)};
}

// rows x cols of a matrix, starting at (row, col) of the whole matrix.
struct Block {
  int row = 0, col = 0, rows = 0, cols = 0;
};

constexpr Block transposed(Block b) { return {b.col, b.row, b.cols, b.rows}; }

// The block of op(X) rank `rank` of `ranks` owns (X = A: op(A) is m x k; B: op(B) is k x n; C: m x n).
constexpr Block logical_block(Algorithm algorithm, Operand x, int m, int n, int k, int ranks, int rank) {
  const Range rows_m = partition(m, ranks, rank);
  if (x == Operand::C) return {rows_m.offset, 0, rows_m.size, n};
  const Range part_k = partition(k, ranks, rank);
  if (x == Operand::A) {
    if (algorithm == Algorithm::ReduceScatter) return {0, part_k.offset, m, part_k.size};
    return {rows_m.offset, 0, rows_m.size, k};
  }
  switch (algorithm) {
    case Algorithm::RowSplit: return {0, 0, k, n};
    case Algorithm::ReduceScatter: return {part_k.offset, 0, part_k.size, n};
    default: {
      const Range cols_n = partition(n, ranks, rank);
      return {0, cols_n.offset, k, cols_n.size};
    }
  }
}

// The same block as stored: transposed for an operand stored transposed (op T). C is never transposed.
constexpr Block stored_block(Algorithm algorithm, Operand x, Op op, int m, int n, int k, int ranks, int rank) {
  const Block b = logical_block(algorithm, x, m, n, k, ranks, rank);
  return x != Operand::C && op == Op::T ? transposed(b) : b;
}

constexpr int positive_mod(int a, int p) { return ((a % p) + p) % p; }

// Step `step` (0 <= step < ranks) of the all-gather ring on rank `rank`: the rank multiplies the B
// block of rank `block`; during the step it sends that block to rank + 1 and receives block
// `recv_block` from rank - 1, which it multiplies at the next step. The last step exchanges nothing,
// so each rank multiplies every block once: its own first, then the one of rank - 1, rank - 2, ...
struct RingStep {
  int block = 0;
  bool exchange = false;
  int send_to = -1, recv_from = -1, recv_block = -1;  // -1 without an exchange
};

constexpr RingStep ring_step(int rank, int ranks, int step) {
  RingStep s;
  s.block = positive_mod(rank - step, ranks);
  s.exchange = step + 1 < ranks;
  if (s.exchange) {
    s.send_to = positive_mod(rank + 1, ranks);
    s.recv_from = positive_mod(rank - 1, ranks);
    s.recv_block = positive_mod(rank - step - 1, ranks);
  }
  return s;
}

constexpr long long round_up(long long x, long long multiple) { return (x + multiple - 1) / multiple * multiple; }

// How B block `block` of the all-gather algorithms travels and is kept by a receiver: the stored
// block (op N: k x n_q, op T: n_q x k) with its rows ld elements apart, ld = the row length rounded
// up to `align` elements (16 bytes: rows the local multiply can read with TMA). count() elements are
// sent, from the block's first element to its last (no trailing padding, so a sender whose own
// shard already has this ld sends from it without a copy); size() is what a receiver's buffer holds.
struct WireBlock {
  int rows = 0, cols = 0;
  long long ld = 1;
  constexpr std::size_t count() const {
    return rows == 0 || cols == 0 ? 0 : static_cast<std::size_t>(rows - 1) * static_cast<std::size_t>(ld) + cols;
  }
  constexpr std::size_t size() const { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(ld); }
};

constexpr WireBlock wire_block(Op op_b, int n, int k, int ranks, int block, int align) {
  const Block b = stored_block(Algorithm::AllGather, Operand::B, op_b, 0, n, k, ranks, block);
  return {b.rows, b.cols, round_up(b.cols > 1 ? b.cols : 1, align)};
}

// ReduceScatter: the partial products fill an m x n buffer with rows `partial_ld` apart (n rounded up
// to 16 bytes of the partial type). Step q computes the rows of rank q's block and reduces them onto
// rank q, while the next step's rows are being computed.
constexpr long long partial_ld(int n, int align) { return round_up(n > 1 ? n : 1, align); }

constexpr std::size_t partial_count(int rows, int n, long long ld) {
  return rows == 0 || n == 0 ? 0 : static_cast<std::size_t>(rows - 1) * static_cast<std::size_t>(ld) + n;
}

}  // namespace gemm::distributed
