#pragma once
// The decode kernel: C = alpha * A B^T + beta * C for a few tokens (rows of A, or of B when n is the
// small side) against a weight stored K-major, on mma.sync with the weight's rows on mma's 16-row side.
//
// Such a product is bound by reading the weight once: 2 bytes per element against 2 x tokens flops.
// A 64-row wgmma tile spends most of its work on rows that do not exist, so here the weight's rows
// take mma's 16-row side (its A operand) and the tokens its 8-column side: with the tokens in A,
// D^T (16 x 8) += B (16 x 16) A^T (16 x 8). DecodeTokens says which operand holds them.
//
// No shared memory stages: each thread loads 16-byte pieces (8 k) of the weight's rows straight into
// its fragment registers. mma's fragments give lane (g, t) = (lane / 4, lane % 4) the k columns
// {2t, 2t+1, 2t+8, 2t+9} of rows g and g + 8 (ptx/mma.cuh); a dot product does not care in which
// order its k terms come, so as long as the tokens' fragments use the same order, lane (g, t) may
// hold any four k of its own. A warp's step covers 32 k: lane t's piece is k = 8t .. 8t+7 of the
// weight's rows g and g + 8 and of token g; elements 0-3 of the piece feed one mma as that lane's
// logical k {2t, 2t+1, 2t+8, 2t+9}, elements 4-7 a second one. Every load of the weight is a whole
// 16 bytes, four lanes read a row's 64 contiguous bytes, and no lane waits for another. (Tokens stored
// as the columns of B, k x n, are first copied transposed by DecodePolicy: read in place, a token's
// piece was eight 2-byte loads, and such calls took up to 1.7 times as long.)
//
// A block's warps are WarpsAlongRows x warps along k: the first own different 16-row groups (and
// read the same tokens at about the same time, which L1 then serves), the second different steps of
// k, in turn (warp w of a row group takes steps w, w + warps, ...), so that a block's loads of one
// row are neighbours. Each warp keeps two rounds of PiecesInFlight steps of loads in flight: the next
// round is issued before the mmas of this one wait for theirs. Blocks along y share k in slices
// (where the rows alone give too few warps); the warps' sums meet in shared memory and the slices'
// in a workspace, added in a fixed order by the last block of a row group to arrive
// (detail/slice_sums.cuh), so results are bitwise the same from call to call.
//
// Weight rows past the end and tokens past the count read the last one instead (their sums are never
// stored); k past the end reads zeros. A piece is one 16-byte load where every row read in pieces is
// 16-byte aligned, else two 8-byte loads (rows of 8-byte multiples: an odd multiple of 4 for k);
// DecodePolicy checks the rows and picks the kernel.
#include <cstdint>
#include <type_traits>
#include "../detail/slice_sums.cuh"
#include "../epilogue.cuh"
#include "../ptx/grid_dependency.cuh"
#include "../ptx/ld_global.cuh"
#include "../ptx/mma.cuh"
#include "../types.cuh"
#include "epilogue.cuh"

namespace gemm::mma {

// The shape of a decode block: RowGroups 16-row groups of the weight per warp, WarpsAlongRows warps
// over different row groups and up to WarpsAlongK along k (the launch picks how many), each keeping
// two rounds of PiecesInFlight warp steps of 32 k loaded before their mmas.
template <int RowGroups, int WarpsAlongRows, int WarpsAlongK, int PiecesInFlight>
struct DecodeTile {
  static_assert(RowGroups >= 1 && WarpsAlongRows >= 1 && WarpsAlongK >= 1 && PiecesInFlight >= 1,
                "DecodeTile: every count must be at least 1.");
  static_assert(WarpsAlongRows * WarpsAlongK <= 32, "DecodeTile: at most 32 warps per block.");
  static constexpr int kRowGroups = RowGroups;
  static constexpr int kWarpsAlongRows = WarpsAlongRows;
  static constexpr int kWarpsAlongK = WarpsAlongK;
  static constexpr int kInFlight = PiecesInFlight;
  static constexpr int kThreads = 32 * WarpsAlongRows * WarpsAlongK;  // the most a launch uses
  static constexpr int kRows = 16 * RowGroups * WarpsAlongRows;       // rows of the weight per block
  static constexpr int kStepK = 32;                                    // k per warp step
  static std::string describe() {
    return "DecodeTile<" + std::to_string(kRows) + " rows, " + std::to_string(WarpsAlongRows) + "x" +
           std::to_string(WarpsAlongK) + " warps, " + std::to_string(PiecesInFlight) +
           " steps a round, two rounds in flight>";
  }
};

// k shared across blocks: slices of `steps_per_slice` warp steps; partials and counters only when
// slices > 1 (counters 0 between calls).
struct DecodeSplit {
  int slices = 1;
  int steps_per_slice = 0;
  float* partials = nullptr;     // row groups x slices x (kRows x tokens) floats
  unsigned* counters = nullptr;  // one per block of rows
};

// Which operand holds the few rows (the tokens) and how they are stored; the other operand is the
// weight, K-major, whose rows take mma's 16-row side.
//   RowsOfA:    tokens are A's rows (m of them), the weight B stored n x k (op T); C[token][row].
//   RowsOfBT:   tokens are the rows of B stored n x k (op T; n of them), the weight A (op N); C[row][token].
//   ColumnsOfB: tokens are the columns of B stored k x n (op N), the weight A (op N); C[row][token]:
//               what the caller passes, run as RowsOfBT on a transposed copy of B (decode_policy.cuh).
enum class DecodeTokens { RowsOfA, RowsOfBT, ColumnsOfB };

namespace decode {

template <class In>
__device__ __forceinline__ void mma16816(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<In, __half>)
    ptx::mma_m16n8k16_f16(d, a, b);
  else
    ptx::mma_m16n8k16_bf16(d, a, b);
}

// The 8 elements of a row at k0 .. k0 + 7 (zeros past k). A whole piece is one 16-byte load, or two
// 8-byte ones (kPieceBytes = 8: rows aligned to 8 bytes only).
template <bool kStreaming, int kPieceBytes, class In>
__device__ __forceinline__ uint4 load_piece(const In* row, int k0, int k) {
  if (k0 + 8 <= k) {
    if constexpr (kPieceBytes == 16) {
      return kStreaming ? ptx::load_streaming_16(row + k0) : ptx::load_shared_16(row + k0);
    } else {
      const uint2 lo = kStreaming ? ptx::load_streaming_8(row + k0) : ptx::load_shared_8(row + k0);
      const uint2 hi = kStreaming ? ptx::load_streaming_8(row + k0 + 4) : ptx::load_shared_8(row + k0 + 4);
      return make_uint4(lo.x, lo.y, hi.x, hi.y);
    }
  }
  uint4 v = make_uint4(0, 0, 0, 0);
  if (k0 < k) {  // the last, partial piece of a k that is not a multiple of 8
    const std::uint16_t* src = reinterpret_cast<const std::uint16_t*>(row + k0);
    std::uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if (i < k - k0) w[i / 2] |= std::uint32_t(src[i]) << (16 * (i % 2));
    v = make_uint4(w[0], w[1], w[2], w[3]);
  }
  return v;
}

}  // namespace decode

// One warp step's pieces for every step of a round in flight: the weight's rows and the tokens.
template <class In, class Tile, int MT, int kPieceBytes>
struct DecodePieces {
  uint4 b[Tile::kInFlight][Tile::kRowGroups][2];
  uint4 a[Tile::kInFlight][MT];

  // The round whose first step is s (steps `stride` apart, none from `end` on). Tokens are K-major
  // rows at tokens[j].
  __device__ __forceinline__ void load(const In* const (&rows)[Tile::kRowGroups][2], const In* const (&tokens)[MT],
                                       int s, int stride, int end, int k_left) {
#pragma unroll
    for (int u = 0; u < Tile::kInFlight; ++u) {
      const int k0 = s + u * stride < end ? (s + u * stride) * Tile::kStepK : k_left;  // past the slice: zeros
#pragma unroll
      for (int r = 0; r < Tile::kRowGroups; ++r)
#pragma unroll
        for (int h = 0; h < 2; ++h) b[u][r][h] = decode::load_piece<true, kPieceBytes>(rows[r][h], k0, k_left);
#pragma unroll
      for (int j = 0; j < MT; ++j)
        a[u][j] = decode::load_piece<false, kPieceBytes>(tokens[j], k0, k_left);
    }
  }

  __device__ __forceinline__ void multiply(float (&acc)[Tile::kRowGroups][MT][4]) const {
#pragma unroll
    for (int u = 0; u < Tile::kInFlight; ++u)
#pragma unroll
      for (int r = 0; r < Tile::kRowGroups; ++r)
#pragma unroll
        for (int j = 0; j < MT; ++j) {
          // Elements 0-3 of the piece, then 4-7 (fragment registers: rows g, g + 8, g, g + 8).
          const std::uint32_t lo[4] = {b[u][r][0].x, b[u][r][1].x, b[u][r][0].y, b[u][r][1].y};
          const std::uint32_t hi[4] = {b[u][r][0].z, b[u][r][1].z, b[u][r][0].w, b[u][r][1].w};
          const std::uint32_t alo[2] = {a[u][j].x, a[u][j].y}, ahi[2] = {a[u][j].z, a[u][j].w};
          decode::mma16816<In>(acc[r][j], lo, alo);
          decode::mma16816<In>(acc[r][j], hi, ahi);
        }
  }
};

// Launched with WarpsAlongRows x warps_k warps (warps_k <= Tile::kWarpsAlongK, from blockDim).
// kPieceBytes: 16, or 8 where the rows read in pieces are aligned to 8 bytes only.
template <class Args, class Tile, int kTokenTiles, DecodeTokens kTokenSide = DecodeTokens::RowsOfA,
          int kPieceBytes = 16>
__global__ void __launch_bounds__(Tile::kThreads) decode_kernel(const Args args, const DecodeSplit split) {
  static_assert(kPieceBytes == 16 || kPieceBytes == 8, "decode_kernel: pieces load as 16 or 2 x 8 bytes.");
  static_assert(kTokenSide != DecodeTokens::ColumnsOfB,
                "decode_kernel: tokens stored as B's columns run on a transposed copy (RowsOfBT).");
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  using In = typename Args::Element;
  constexpr int RG = Tile::kRowGroups, WR = Tile::kWarpsAlongRows;
  constexpr int MT = kTokenTiles;
  constexpr int kTokens = 8 * MT;
  constexpr int kOut = Tile::kRows * kTokens;  // sums per block
  constexpr bool kTokensInA = kTokenSide == DecodeTokens::RowsOfA;
  const int threads = blockDim.x, warps_k = threads / (32 * WR);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int warp_rows = warp % WR, warp_k = warp / WR;
  const int row0 = blockIdx.x * Tile::kRows + warp_rows * 16 * RG;
  // The weight (K-major rows) and the tokens, whichever operands they are.
  const In* weight = kTokensInA ? args.B : args.A;
  const long long ldw = kTokensInA ? args.ldb : args.lda;
  const int rows = kTokensInA ? args.n : args.m, count = kTokensInA ? args.m : args.n;
  const In* token_base = kTokensInA ? args.A : args.B;
  const long long ldt = kTokensInA ? args.lda : args.ldb;

  // This lane's rows of the weight (g and g + 8 of each group) and its tokens (g of each tile), at its
  // piece (k = 8t).
  const In* w_rows[RG][2];
#pragma unroll
  for (int r = 0; r < RG; ++r)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      w_rows[r][h] = weight + static_cast<long long>(min(row0 + 16 * r + 8 * h + g, rows - 1)) * ldw + 8 * t;
  const In* tokens[MT];
#pragma unroll
  for (int j = 0; j < MT; ++j) {
    const long long token = min(8 * j + g, count - 1);
    tokens[j] = token_base + token * ldt + 8 * t;
  }

  const int steps = (args.k + Tile::kStepK - 1) / Tile::kStepK;
  const int first = blockIdx.y * split.steps_per_slice;
  const int end = min(steps, first + split.steps_per_slice);
  const int k_left = args.k - 8 * t;  // k past this lane's offset in a step
  const int round = warps_k * Tile::kInFlight;
  float acc[RG][MT][4] = {};
  // Two rounds of loads in flight: the next round is issued before this one's mmas wait for theirs.
  DecodePieces<In, Tile, MT, kPieceBytes> even, odd;
  int step = first + warp_k;
  if (step < end) even.load(w_rows, tokens, step, warps_k, end, k_left);
  while (step < end) {
    if (step + round < end) odd.load(w_rows, tokens, step + round, warps_k, end, k_left);
    even.multiply(acc);
    step += round;
    if (step >= end) break;
    if (step + round < end) even.load(w_rows, tokens, step + round, warps_k, end, k_left);
    odd.multiply(acc);
    step += round;
  }

  // The warps' sums along k, in warp order. acc[r][j][c] of lane (g, t) is row 16 r + g + 8 (c / 2),
  // token 8 j + 2 t + c % 2 of the warp's rows.
  __shared__ float warp_sums[Tile::kWarpsAlongK][WR][RG][MT][4][32];
  __shared__ int last;
#pragma unroll
  for (int r = 0; r < RG; ++r)
#pragma unroll
    for (int j = 0; j < MT; ++j)
#pragma unroll
      for (int c = 0; c < 4; ++c) warp_sums[warp_k][warp_rows][r][j][c][lane] = acc[r][j][c];
  __syncthreads();
  // Thread e of the block's sums: row e % kRows (neighbouring threads, neighbouring columns of C).
  constexpr int kPerThread = (kOut + 32 * WR - 1) / (32 * WR);  // (at least WR warps)
  float sum[kPerThread];
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const int e = threadIdx.x + i * threads;
    const int row = e % Tile::kRows, token = e / Tile::kRows;
    const int wr = row / (16 * RG), r = row / 16 % RG, rr = row % 16, j = token / 8, tt = token % 8;
    const int from_lane = (rr % 8) * 4 + tt / 2, c = tt % 2 + 2 * (rr / 8);
    float s = 0.f;
    if (e < kOut) {
      for (int w = 0; w < warps_k; ++w) s += warp_sums[w][wr][r][j][c][from_lane];
    }
    sum[i] = s;
  }
  if (split.slices > 1) {
    // Every slice's sums to the workspace; the row group's last block adds them in slice order.
    float* group = split.partials + static_cast<long long>(blockIdx.x) * split.slices * kOut;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int e = threadIdx.x + i * threads;
      if (e < kOut) group[static_cast<long long>(blockIdx.y) * kOut + e] = sum[i];
    }
    const auto block_sync = [] { __syncthreads(); };
    if (!detail::counted_in_last(split.counters + blockIdx.x, split.slices, threadIdx.x == 0, &last, block_sync))
      return;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int e = threadIdx.x + i * threads;
      float s = 0.f;
      if (e < kOut)
        for (int q = 0; q < split.slices; ++q) s += __ldcg(group + static_cast<long long>(q) * kOut + e);
      sum[i] = s;
    }
    detail::reset_slice_counter(split.counters + blockIdx.x, threadIdx.x == 0);
  }
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const int e = threadIdx.x + i * threads;
    const int token = e / Tile::kRows, row = blockIdx.x * Tile::kRows + e % Tile::kRows;
    if (e < kOut) store_element(args, kTokensInA ? token : row, kTokensInA ? row : token, sum[i]);
  }
}

}  // namespace gemm::mma
