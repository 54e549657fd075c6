#pragma once
// DecodePolicy: a few tokens against a weight, bound by reading the weight once: m <= 8 *
// MaxTokenTiles rows of A against B stored transposed (n x k, as PyTorch keeps a weight), or n <= 8 *
// MaxTokenTiles columns of B (stored either way) against a row-major A. mma.sync with the weight's
// rows on mma's 16-row side (mma/decode_kernel.cuh), so it runs on every sm_80+ GPU, Hopper included.
//
//   DecodePolicy<DecodeTile<RowGroups, WarpsAlongRows, WarpsAlongK, PiecesInFlight>,
//                MaxTokenTiles, WarpsPerSm, Targets>
//
// One kernel per 8 tokens (tiles of mma's 8 columns; 1 .. MaxTokenTiles) and per side the tokens are
// on, chosen at run time. Warps along k per block, then k slices across blocks, until the call has
// WarpsPerSm warps per SM (layout_for); the slices' fp32 sums go to stream-ordered scratch and are
// added in a fixed order (bitwise-reproducible results).
//
// What it serves: bf16 and fp16 with C in the input type or float, fused epilogues, any m, n, k
// and leading dimension within that; single products only, A row-major with rows of 8-byte multiples
// (pointer and leading dimension; 16-byte ones load in one instruction per piece, the others in two),
// B stored transposed likewise or (tokens in B) row-major with any (copied transposed first);
// C needs only its element's alignment. Anything else gets Status::UnsupportedShape (or
// MisalignedA/B) before any launch; preset::Tuned takes it only where it serves the call.
#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include "../detail/launch.cuh"
#include "../detail/workspace.cuh"
#include "../kernel/transpose_kernel.cuh"
#include "../parts/targets.cuh"
#include "../types.cuh"
#include "decode_kernel.cuh"

namespace gemm {

template <class TileP, int MaxTokenTiles = 2, int WarpsPerSm = 32, class TargetsP = EveryImage>
struct DecodePolicy {
  using Tile = TileP;
  using Targets = TargetsP;
  template <class X>
  using WithTargets = DecodePolicy<TileP, MaxTokenTiles, WarpsPerSm, X>;
  static_assert(MaxTokenTiles >= 1 && MaxTokenTiles <= 4,
                "DecodePolicy: MaxTokenTiles is 1 to 4 (8 to 32 tokens); larger m runs faster on tiled kernels.");
  static_assert(WarpsPerSm >= 1, "DecodePolicy: WarpsPerSm must be at least 1.");
  static constexpr int kMaxM = 8 * MaxTokenTiles;
  static constexpr int kMinArch = 80;
  static const char* name() { return "DecodePolicy"; }
  static std::string parts() {
    return Tile::describe() + ", up to " + std::to_string(kMaxM) + " tokens (m, or n), the weight's rows on "
           "mma's 16-row side, 16-byte pieces (two 8-byte loads on rows of 8-byte multiples) loaded into "
           "fragments, warps along k (then k slices) to " +
           std::to_string(WarpsPerSm) + " warps per SM" +
           (std::is_same_v<Targets, EveryImage> ? std::string() : ", " + Targets::describe());
  }

  template <class T, class Out>
  static constexpr bool kServes = is_16bit<T> && is_supported_output<T, Out>;

  template <class X>
  static int smem_bytes() {
    return 0;  // (static shared memory only: at most 32 x 4 x 32 floats of the warps' sums per 16 rows)
  }

  // Where a call's tokens are (none: not a call it serves, whatever the alignment): A's rows where
  // m is small and B is stored transposed, else B's rows or columns where n is small.
  template <class Args>
  static std::optional<mma::DecodeTokens> tokens_of(const Args& args) {
    using mma::DecodeTokens;
    if (Args::kBatching != Batch::None || args.op_a != Op::N) return std::nullopt;
    if (args.op_b == Op::T && args.m <= kMaxM) return DecodeTokens::RowsOfA;
    if (args.n <= kMaxM) return args.op_b == Op::T ? DecodeTokens::RowsOfBT : DecodeTokens::ColumnsOfB;
    return std::nullopt;
  }
  // The bytes a piece of 8 elements loads at once: 16 where every row read in pieces (A's, and B's
  // unless the tokens are its columns) is 16-byte aligned, 8 where they are 8-byte aligned, else 0.
  template <class Args>
  static int piece_bytes(const Args& args) {
    const bool b_in_pieces = tokens_of(args) != mma::DecodeTokens::ColumnsOfB;
    for (const int bytes : {16, 8})
      if (detail::a_aligned(args, bytes) && (!b_in_pieces || detail::b_aligned(args, bytes))) return bytes;
    return 0;
  }
  // Whether this call is one it serves: the layouts, the batch, the tokens, rows of 8-byte multiples
  // (where the kernel reads pieces).
  template <class Args>
  static bool serves(const Args& args) {
    return tokens_of(args) && piece_bytes(args) > 0;
  }
  // The tokens of a call it serves.
  template <class Args>
  static int tokens(const Args& args) {
    return tokens_of(args) == mma::DecodeTokens::RowsOfA ? args.m : args.n;
  }

  template <class T, class Args>
  static Status check_alignment(const Args& args) {
    if (!detail::reads_ab(args)) return Status::Success;
    // (piece_bytes decides which rows must be aligned; with A's rows aligned, B's are the ones that fail.)
    if (!detail::a_aligned(args, 8)) return Status::MisalignedA;
    return piece_bytes(args) > 0 ? Status::Success : Status::MisalignedB;
  }

  // How a call is laid out on dev: warps along k per block (powers of two from 4 to the tile's
  // WarpsAlongK) until the blocks' warps reach WarpsPerSm per SM, each warp at least one round of
  // steps; then, where the warps stay below half of that (a narrow B), k slices across blocks to reach
  // it, evened out so that no slice is empty.
  struct Layout {
    int warps_k, slices, steps_per_slice;
  };
  template <class Args>
  static Layout layout_for(const Args& args, const detail::DeviceInfo& dev) {
    const long long steps = detail::ceil_div(args.k, Tile::kStepK);
    const long long groups = row_groups(args);
    const long long wanted = static_cast<long long>(WarpsPerSm) * dev.sms;
    const auto warps = [&](long long wk) { return groups * Tile::kWarpsAlongRows * wk; };
    long long wk = std::min(4, Tile::kWarpsAlongK);
    while (2 * wk <= Tile::kWarpsAlongK && warps(wk) < wanted && 2 * wk * Tile::kInFlight <= steps) wk *= 2;
    long long slices = 1;
    if (2 * warps(wk) < wanted)
      slices = std::clamp(detail::ceil_div(wanted, warps(wk)), 1LL,
                          std::min(256LL, std::max(1LL, steps / (wk * Tile::kInFlight))));
    const long long per = detail::ceil_div(steps, slices);
    slices = detail::ceil_div(steps, per);
    return {static_cast<int>(wk), static_cast<int>(slices), static_cast<int>(per)};
  }
  // Blocks of the weight's rows.
  template <class Args>
  static long long row_groups(const Args& args) {
    return detail::ceil_div(tokens_of(args) == mma::DecodeTokens::RowsOfA ? args.n : args.m, Tile::kRows);
  }
  template <class Args>
  static std::size_t partial_bytes(const Args& args, const Layout& l) {
    if (l.slices == 1) return 0;
    const long long groups = row_groups(args);
    const long long tokens = 8 * detail::ceil_div(DecodePolicy::tokens(args), 8);
    return static_cast<std::size_t>(groups * l.slices * Tile::kRows * tokens * sizeof(float) + groups * sizeof(unsigned));
  }
  // Tokens as the columns of a row-major B (k x n) are first copied transposed (n x k, rows of
  // 64-byte multiples) into stream-ordered scratch, and the call runs as B stored transposed: the
  // kernel then loads each token's k in 16-byte pieces, as for a weight stored transposed, instead of
  // a token's column in 2-byte ones. H200, bf16, 27 calls (weights of 4096-14336 rows, k =
  // 4096-10692, 1-8 tokens), back to back: the columns read in place took 1.03-1.74 times as long as
  // the same call with B stored transposed (8561 x 8 x 4096 42.5 us against 24.4, cuBLAS 24.7).
  template <class Args>
  static bool transposes_columns(const Args& args) {
    return tokens_of(args) == mma::DecodeTokens::ColumnsOfB;
  }
  // The call as the kernel runs it: where transposes_columns, B stored transposed with the copy's
  // leading dimension (the caller points B at the copy).
  template <class Args>
  static Args as_run(const Args& args) {
    Args r = args;
    if (transposes_columns(args)) r.op_b = Op::T, r.B = nullptr, r.ldb = transposed_ld(args);
    return r;
  }
  template <class Args>
  static int transposed_ld(const Args& args) {
    constexpr int per_row = 64 / static_cast<int>(sizeof(typename Args::Element));
    return static_cast<int>(detail::ceil_div(std::max(1, args.k), per_row) * per_row);
  }
  template <class Args>
  static std::size_t transposed_bytes(const Args& args) {
    if (!transposes_columns(args)) return 0;
    return (static_cast<std::size_t>(args.n) * transposed_ld(args) * sizeof(typename Args::Element) + 255) / 256 * 256;
  }

  template <class U, class Args>
  static std::size_t workspace_bytes(const Args& args, const detail::DeviceInfo& dev) {
    if (!serves(args)) return 0;
    const Args run = as_run(args);
    return transposed_bytes(args) + partial_bytes(run, layout_for(run, dev));
  }

  template <class T, class Layouts, class Args>
  static Status launch(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if constexpr (!kServes<T, typename Args::Output> || Args::kBatching != Batch::None) {
      (void)args, (void)dev, (void)stream;
      return kServes<T, typename Args::Output> ? Status::UnsupportedShape : Status::UnsupportedArchitecture;
    } else {
      using mma::DecodeTokens;
      if (dev.arch < kMinArch) return Status::UnsupportedArchitecture;
      if (Status s = detail::runs_here<Targets>(dev); s != Status::Success) return s;
      if (!serves(args)) return Status::UnsupportedShape;
      // (Kernels only for the sides the layouts reach: A row-major, B transposed or not.)
      if constexpr (reaches<Layouts, Op::T>()) {
        if (tokens_of(args) == DecodeTokens::RowsOfA) return with_token_tiles<DecodeTokens::RowsOfA, 1>(args, dev, stream);
        if (tokens_of(args) == DecodeTokens::RowsOfBT) return with_token_tiles<DecodeTokens::RowsOfBT, 1>(args, dev, stream);
      }
      if constexpr (reaches<Layouts, Op::N>()) {
        if (tokens_of(args) == DecodeTokens::ColumnsOfB) {
          detail::StreamWorkspace workspace(stream, dev.device);  // freed in stream order after the kernel
          Args run = as_run(args);
          const std::size_t bt_bytes = transposed_bytes(args);
          char* scratch = nullptr;
          if (Status st = workspace.allocate(scratch, bt_bytes + partial_bytes(run, layout_for(run, dev)));
              st != Status::Success)
            return st;
          using E = typename Args::Element;
          E* bt = reinterpret_cast<E*>(scratch);
          run.B = bt;
          if (args.k > 0) {  // (a k of 0 reads no B: the kernel only scales C)
            if (Status st = detail::transpose(args.B, args.ldb, args.k, args.n, bt, run.ldb, dev, stream);
                st != Status::Success)
              return st;
          }
          return with_token_tiles<DecodeTokens::RowsOfBT, 1>(run, dev, stream, scratch + bt_bytes);
        }
      }
      return Status::UnsupportedShape;
    }
  }

 private:
  // Whether calls with these layouts (AnyOps: any) can have A row-major and B stored as op_b.
  template <class Layouts, Op kOpB>
  static constexpr bool reaches() {
    if constexpr (std::is_same_v<Layouts, detail::AnyOps>)
      return true;
    else
      return Layouts::a == Op::N && Layouts::b == kOpB;
  }

  // partials: scratch for the k slices' sums already allocated (else allocated here where needed).
  template <mma::DecodeTokens kSide, int MT, class Args>
  static Status with_token_tiles(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream,
                                 char* partials = nullptr) {
    if constexpr (MT < MaxTokenTiles) {
      if (tokens(args) > 8 * MT) return with_token_tiles<kSide, MT + 1>(args, dev, stream, partials);
    }
    const Layout l = layout_for(args, dev);
    const long long groups = row_groups(args);
    mma::DecodeSplit split;
    split.slices = l.slices;
    split.steps_per_slice = l.steps_per_slice;
    detail::StreamWorkspace workspace(stream, dev.device);  // freed in stream order after the kernel
    if (l.slices > 1) {
      char* scratch = partials;
      const std::size_t bytes = partial_bytes(args, l);
      if (!scratch) {
        if (Status st = workspace.allocate(scratch, bytes); st != Status::Success) return st;
      }
      split.partials = reinterpret_cast<float*>(scratch);
      split.counters = reinterpret_cast<unsigned*>(scratch + bytes - groups * sizeof(unsigned));
      if (Status st = detail::zero_slice_counters(split.counters, groups, stream); st != Status::Success) return st;
    }
    const int threads = 32 * Tile::kWarpsAlongRows * l.warps_k;
    const detail::Grid grid(groups, l.slices);
    if (piece_bytes(args) == 16)
      return detail::launch_kernel<&mma::decode_kernel<Args, Tile, MT, kSide, 16>>(grid, threads, 0, stream, dev, args,
                                                                                   split);
    return detail::launch_kernel<&mma::decode_kernel<Args, Tile, MT, kSide, 8>>(grid, threads, 0, stream, dev, args,
                                                                                split);
  }
};

}  // namespace gemm
