#pragma once
// preset::Tuned's decision constants as data: what its rules compare a call's shape against, per
// architecture. Counts of tiles are in rounds of the device's SMs (a round: one block per SM), so a
// GPU with another SM count (an H100 PCIe's 114, an H20's 78) gets thresholds scaled to it; the
// rest are sizes and the cost model's weights. gemm::plan reports the table it used
// (Plan::rules), Tuned::parts() names the rules, and tools/plan_audit.cu times Tuned's choices
// against every composition it picks from, which is how the sm_90 values were measured (H100 and
// H200 SXM, 132 SMs). Other architectures take the sm_90 values until measured.
#include <cstdio>
#include <string>

namespace gemm {

// num / den rounds of the SMs; `reached(tiles, sms)`: tiles >= num / den * sms, in integers.
struct Rounds {
  int num, den;
  constexpr bool reached(long long tiles, int sms) const {
    return tiles * den >= static_cast<long long>(num) * sms;
  }
  // tiles <= num / den * sms: they take at most this many rounds.
  constexpr bool within(long long tiles, int sms) const {
    return tiles * den <= static_cast<long long>(num) * sms;
  }
  std::string describe() const { return std::to_string(num) + "/" + std::to_string(den); }
};

// The Hopper kernel's tile choice (bf16, fp16, tf32, tf32x3 on sm_90).
struct HopperRules {
  Rounds wide_tiles{128, 132};     // 128x256 tiles from this many rounds of them
  Rounds medium_tiles{128, 132};   // below that, 128x128 tiles from this many rounds of them
  int small_vs_medium_rounds = 2;  // 128x64 unless they take this many times 128x128's rounds
  int medium_min_k = 2048;         // with wide tiles, 128x128 ones where k is at least this long ...
  int medium_vs_wide_rounds = 2;   // ... and they take fewer than this many times the wide tiles' rounds
  int pingpong_max_rounds = 4;     // a fused epilogue: ping-pong while the wide tiles take at most this many rounds,
  int pingpong_half_round = 21;    // ... or where pingpong_half_round x rounds of 128x128 tiles <
  int pingpong_full_round = 40;    // ... pingpong_full_round x rounds of 128x256 ones,
  // ... or, 16-bit, where k is at most fused_pingpong_max_k: the shorter the k, the larger the share
  // of a tile's time its epilogue takes, which the cooperative kernel spends with the tensor cores
  // idle. H200, bias + GELU, bf16 NT (a linear layer), against cuBLASLt's GELU_BIAS, 9 alternated
  // rounds of 1 ms batches, over the calls of more than 4 rounds of 128x256 tiles: ping-pong /
  // cooperative 16384 x 32768 x 512 1.00 / 0.83, 8192 x 3072 x 768 1.01 / 0.88, 12288 x 4096 x 1024
  // 0.97 / 0.86, 16384 x 24576 x 1536 1.10 / 0.91, 8192^2 x 2048 0.96 / 0.83, 8192^2 x 3072 0.98 /
  // 0.88, 16384 x 28672 x 4096 1.05 / 0.96, 8192 x 4096 x 4096 1.00 / 0.93; ping-pong ahead on every
  // one of the 26 such calls with k from 256 to 4096. Longer k keeps the rule above (H100, sustained:
  // 6144^3 and 8192^3 5% faster cooperative).
  int fused_pingpong_max_k = 4096;
  int pingpong_max_k = 1024;       // a plain 16-bit call: ping-pong where 128x256 tiles fill wide_tiles rounds and k
  int pingpong_min_k = 16;         // is in [pingpong_min_k, pingpong_max_k] (its epilogue under the other mainloop)
  // ... and before the widths that balance the rounds (the cost model below), where its 128x128
  // tiles make at least a round of the SMs and cost the least at this speed: with a short k a tile's
  // epilogue is a large share of its time, which the ping-pong schedule hides. H200, bf16, plain
  // calls, k = 512-768, against 128x192 tiles taking the same rounds: 2048 x 3072 x 768 NN, 8192 x 768
  // x 768 NT, 1536 x 4096 x 768 TN 7-8% faster, 576 x 7168 x 512 TN 9%, 2732 x 2014 x 657 NT 13%, and
  // with half a round more (12608 x 2304 x 768 NT: 14 rounds of 128x128 against 9 of 128x192) 3%;
  // against 128x128 tiles on the cooperative kernel (512 x 7168 x 576 NN) 8%; behind where 128x192
  // take fewer rounds (768 x 3072 x 1024 TN: 21% slower in 2 rounds against 1) and 128x96 tiles
  // (2048 x 2304 x 768 NT: 9%). Those runs put this speed at 1.05-1.13; at 1.08 3000 x 5000 x 512 NN
  // (8 rounds of 128x128, 5 of 128x192: a tie at 1.10) keeps 128x192, 5% faster there.
  double speed_pingpong = 1.08;
  int decode_max_m = 128;          // 64-row tiles (and split-K) for m up to this
  int turned_max_m = 32;           // 16-bit and tf32, B stored transposed: the call turned around to this m,
  int turned_narrow_max_m = 16;    // ... on 64x16 tiles up to this (64x32 beyond); 16-bit, other layouts up to
  Rounds turned_copied_tiles{1, 4};  // this m, A transposed from this many rounds of the weight's 64-row tiles
  // 16-bit, B stored transposed, turned_wide_min_m to turned_wide_max_m tokens: turned around on 64x64
  // tiles where the weight's 64-row tiles take at most turned_wide_tiles rounds of the SMs (one: a
  // second round costs more than the 64x128 tile's half-empty rows; H200, 20 weights at 40-64 tokens,
  // L2 rotated: a geometric mean of 1.10 of cuBLAS against 1.01; at 33 tokens 7 of 20 weights were
  // slower, 4096 x 14336 by 15%, hence from 40).
  int turned_wide_min_m = 40;
  int turned_wide_max_m = 64;
  Rounds turned_wide_tiles{1, 1};
  // 16-bit, B stored transposed, up to decode.max_m tokens with rows TMA can read: turned around on
  // 64x16 tiles instead of the decode kernel where the weight's 64-row tiles take more than
  // turned_few_above and at most turned_few_within rounds of the SMs. There one round of deep TMA
  // pipelines streams the weight faster than the decode kernel's blocks of 16 rows, whose last round
  // is uneven (5120 rows: 320 blocks, 2.4 rounds); with fewer tiles the decode kernel's k slices, with
  // more its many blocks keep ahead (H200, 20 weights at 1, 2, 4 and 8 tokens, L2 rotated: a
  // geometric mean of 1.10-1.12 of cuBLAS against 1.07-1.09 at 1-4 tokens, 1.05 against 1.00 at 8;
  // worst 0.87-0.92 against 0.81-0.85).
  Rounds turned_few_above{1, 4};
  Rounds turned_few_within{1, 1};
  // FP8 with tensor or row scales (or none), A row-major and B stored n x k, a few tokens: the call
  // turned around on the same tiles, instead of the 64x128 decode tile whose promotion adds 64 x 128
  // partial sums a stage for as few as one token. H200, e4m3 -> bf16, 20 weights (n 1536-28672, k
  // 768-28672) at 1-64 tokens, tensor and row scales, L2 emptied before each call: 64x16 tiles up to
  // turned_narrow_max_m tokens 1.25x the decode tile's speed (geometric mean) within a round of the
  // weight's 64-row tiles, 1.08-1.10x beyond (worst 0.99), so at any count; 64x32 tiles up to
  // turned_max_m 1.17-1.23x within fp8_turned_tiles rounds (worst 1.09), level beyond; 64x64 tiles
  // from turned_wide_min_m to turned_wide_max_m 1.14x within fp8_turned_wide_tiles rounds (worst
  // 0.95), 1.02x from half a round to one (worst 0.92), 0.88x beyond. tools/plan_audit.cu
  // --fp8-turned measures these on another GPU.
  Rounds fp8_turned_tiles{1, 1};
  Rounds fp8_turned_wide_tiles{1, 2};
  // FP8 with more tokens than one 64-row tile holds, up to decode_max_m: the decode tile takes two
  // rows of them (the weight read twice, each by one math warpgroup that promotes alone, the tensor
  // cores idle meanwhile); one row of 128x128 tiles instead where those reach fp8_two_row_medium_tiles
  // rounds of the SMs, or, with block scales (a promotion every k block), where k is at least
  // fp8_two_row_block_min_k and they are within fp8_two_row_block_tiles rounds (the decode tiles
  // then fill at most half the SMs), or at any count from k = fp8_two_row_block_long_k. H200, e4m3 ->
  // bf16, 12 weights (n 2304-57344, k 768-28672) at 72, 96 and 128 tokens beside cuBLASLt in the same
  // run, ours / cuBLASLt geometric mean (worst): tensor scales 0.982 (0.765) against 0.973 (0.715) on
  // the decode tile alone, row 1.270 (0.977) against 1.248 (0.870), block 1.086 (0.802) against 0.954
  // (0.648), the faster of the two on every call; 128x28672x4096 block 0.96 against 0.68.
  // tools/plan_audit.cu --fp8-two-rows measures the four fields on another GPU (H200: {3, 4}; 7168
  // within {1, 4}: 1.19-1.25x at a quarter round, 0.82-0.94x at half a round; 14336 at any count).
  Rounds fp8_two_row_medium_tiles{3, 4};
  Rounds fp8_two_row_block_tiles{1, 4};
  int fp8_two_row_block_min_k = 7168;
  int fp8_two_row_block_long_k = 14336;
  // 128x192 tiles where they balance the rounds of the SMs better than every other width: a width's
  // cost is its rounds times its tile's work (in 128x128 tiles) over its speed (a 128x128 tile's
  // work per second on one SM = 1, measured on whole rounds by tools/plan_audit.cu --fit), and
  // 128x192 is taken where its cost is below balanced_gain times the least of the others'.
  double speed_wide = 1.06;      // 128x256 and 256x128
  double speed_balanced = 1.03;  // 128x192
  double speed_medium = 1.0;     // 128x128
  double balanced_gain = 1.0;
  // 192x128 tiles (three math warpgroups; 16-bit plain single products) by the same model, taken
  // where they cost less than 128x192 and below balanced_gain times the others. tools/plan_audit.cu
  // --fit on an H200, three runs: 0.93, 0.91, 0.90 (128x192 in the same runs 1.03, 1.03, 0.96).
  double speed_balanced_tall = 0.91;
  // 128x96 tiles (16-bit single products without a fused epilogue, B stored transposed: K-major, so
  // the tile loads only its 96 rows) where their tiles fill medium_tiles rounds and cost less than
  // every other width whole (the same cost model). Over operands larger than L2, which they re-read
  // a third more often than 128x128 tiles, they do less work per second (H200: 0.86-0.89 in
  // tools/plan_audit.cu --fit, 16 rounds at k = 8192; 0.69-0.96, median 0.80, over the shape
  // space's 33 NT shapes of at least 8 rounds), so they pay only where the rounds they save outweigh
  // that: 2048 x 768 x 3072 is 96 tiles of 128x128 (one round, 73% full) and 128 of 128x96 (97%).
  // (Any value from 0.80 to 0.95 picks the same 4 of those 184 shapes.)
  double speed_narrow = 0.87;
  // ... and within one round where 128x128 tiles make more than narrow_few_above of a round
  // (fewer: split-K's slices): both then take one round, the 128x96 tiles 0.75 of the work each.
  // H200, 240 seeded random bf16 shapes of half a round to eight rounds of 128x128 tiles, every width
  // timed: on the 12 with B stored transposed and such counts (69-120 tiles of 128x96) 128x96 was
  // 1.10-1.25x the speed of the 128x128 tiles taken before (geometric mean 1.18); with B row-major
  // it was not (0.72-1.16, about level: those tiles load 128 columns of B to use 96). On 70 other
  // such calls 1.132x (4 slower by over 2%), and 1.139x on 35 of them with bias + GELU fused.
  Rounds narrow_few_above{1, 2};
  // 128x128 tiles in k slices (HopperSplitK) against 128x64 ones (whole, or in slices of their own
  // below a quarter of the SMs), in k blocks of a 128x64 tile: a 128x128 k block costs
  // split_medium_cost of them, and splitting adds split_overhead_blocks (the partial tiles, the
  // fixup kernel). H100, the fixup in the last block: 768 x 768 x 4096 took 20.6 us in 2 slices
  // against 17.4 whole, 1024 x 1024 x 65536 207.6 against 279.5 (28 blocks). H200, the fixup
  // kernel, 10 shapes where 128x128 slices and whole 128x64 tiles are near (k of 64-80 blocks, 18-42
  // tiles of 128x128): the slices cost 56-84 blocks, 36 over 1.5 per k block of a slice on the
  // median; it picks the faster of the two on 8 of them (768 x 896 x 5120 NT: slices 5% slower;
  // 384 x 1536 x 4096 NN: whole tiles 3% slower).
  double split_medium_cost = 1.5;
  int split_overhead_blocks = 36;
  // 128x128 tiles whose last round of the SMs is at most half full, with that round's tiles in k
  // slices (HopperSplitK's tail split), against every width whole: the split round costs what the
  // part says (HopperSplitK::tail_round_blocks: its slice's k blocks and the fixup's) over a whole
  // tile's k blocks, and is taken where its cost in rounds is below tail_gain times the least of the
  // others' (the cost model of 128x192 above).
  double tail_gain = 1.0;
  // A single 16-bit product whose A or B rows TMA cannot read (not 16-byte aligned) runs on mma.sync
  // (one launch, element loads where cp.async cannot read) where k is at most unstaged_max_k, instead
  // of being copied aligned for the Hopper kernel (a second launch and an allocation, most of such a
  // call):
  // H200, 15514 x 11 x 13 4.7 us against 18.7, 12468 x 44 x 16 5.6 against 12.6, 4 x 378 x 163 8.3
  // against 12.3, 306 x 7638 x 53 13.8 against 15.2; even at 594 x 20 x 220 (9.3 against 9.2);
  // behind from k = 461 (3847 x 9418 x 461: 417 against 99) as its element loads take over, and
  // behind on larger calls of any k (1023 x 1025 x 161: 15.8 against 12.6; 4095 x 4097 x 191: 124
  // against 50), hence also at most unstaged_max_flops (2 m n k; 306 x 7638 x 53, 0.92 of it: 13.8
  // against 15.2).
  int unstaged_max_k = 192;
  long long unstaged_max_flops = 1LL << 28;
  // Before that, a k of at most short_k_max_k on CUDA cores (ShortKPolicy: bound by writing C,
  // element loads and stores) for such calls with at most short_k_max_c elements of C. H200, against
  // the choices above (mma.sync or aligned copies for the Hopper kernel): 431 x 9355 x 4 NT 1.08 of
  // cuBLAS against 0.41, 196 x 4579 x 14 NT 1.01 against 0.55, 2048 x 2048 x 4 NT 0.98 against 0.64,
  // 4000 x 4000 x 1 NT 1.07 against 0.77; level at 12468 x 44 x 16 (0.78), 0.90 against 0.92 at
  // 15514 x 11 x 13; but 8192 x 8192 x 4 NT 0.81 against 1.12 and 16384^2 x 4 0.76 against 1.62, where
  // the copies' Hopper kernel stores C by TMA faster than element stores; aligned rows keep the
  // Hopper kernel (4096^2 x 8: 0.59 against 1.03).
  int short_k_max_k = 16;
  long long short_k_max_c = 1LL << 25;
  // A few rows of C against a row-major B (k x n) whose rows TMA cannot read, m <= few_rows_max_m
  // and m^2 k <= few_rows_max_m2k: on CUDA cores (FewRowsPolicy: one launch, 64-byte loads along B's
  // rows, 32 warps along k, k in slices of a cluster where the columns make few blocks), instead of
  // mma.sync or the aligned copies for the wgmma tiles. Fitted to tools/plan_audit.cu --few-rows on
  // an H200, B read from HBM: 1 x 51 x 2450 7.7 us against 22.6 without slices and 15-16 on the
  // copies (cuBLAS 7.2), 1 x 2049 x 8191 27.1 against 53.9, 2 x 4097 x 4095 23.8 against 35.3, 4 x
  // 51 x 2450 11.2 against 15.5, 8 x 4282 x 108 6.8 against 8.6 (mma.sync); behind where m and k
  // are both large (8 x 11003 x 1021 35.0 against 23.3, 8 x 1023 x 4099 32.2 against 24.8, 4 x 2049
  // x 8191 60.4 against 54.0): each B element costs m FMAs a thread, and a block's share of k grows.
  int few_rows_max_m = 8;
  long long few_rows_max_m2k = 49152;
};

// The decode kernel (bf16, fp16 on sm_80+: mma/decode_policy.cuh) for a few tokens against a weight.
struct DecodeRules {
  // Up to this many tokens (m, or else n; A row-major, B stored transposed); above it the
  // tiled kernels (on sm_90 the 64-row wgmma tile) read the weight about as fast: H200, 9-16 tokens,
  // a geometric mean of 0.90-0.94 of cuBLAS here against 0.88-0.94 there, worst 0.69-0.73 against 0.75.
  int max_m = 8;
  // (Tokens as the columns of a row-major B, k x n, at any size: the kernel reads a transposed copy
  // of B, as it reads B stored transposed. Read in place, in 2-byte pieces, they were taken only up
  // to 64 KB of B: H200, 16384 x 8 x 16384 194 us against 157 on the wgmma tiles; on the copy 132.)
};

// Strict fp32 on CUDA cores (sm_80+, cp.async).
struct CudaCoreRules {
  Rounds large_tiles{96, 132};  // 128x256 tiles from this many rounds of them
  int skinny_max_m = 16;        // 16x512 tiles with 16 k slices for m up to this ...
  int skinny_min_k = 1024;      // ... and k at least this
  // Before that, m of at most dot_rows_max_m against B stored transposed with 16-byte-aligned rows,
  // k at least dot_rows_min_k: dot products along k on CUDA cores (DotRowsPolicy, bound by reading
  // B). H200, against the 16x512 tiles and cuBLAS's SGEMM (10 weights of 1 to 117 M floats, k 1001 to
  // 14336): faster than the tiles on every one at m = 1-16 (16 x 8192 x 8192: 172 us against 224;
  // 4 x 4096 x 14336 97 against 228), and 0.86-3.1 of cuBLAS at m <= 8 (0.63-1.60 at 16).
  int dot_rows_max_m = 16;
  int dot_rows_min_k = 1000;
  int pack_min_k = 512;         // misaligned rows copied aligned first where k is at least this
  int large_split_min_k = 2048; // k slices of the large tile from this k
  int small_split_min_k = 256;  // k slices of the 64x64 tile from this k
  // The cost model of the small-C choices, in units of a 64x64 tile's quarter of k: a large tile is
  // 32 of them at large_slice_speed x the small tile's speed, a slice of s 32 / s; a whole small
  // tile 4, times latency_penalty while at most one tile per SM and k >= large_split_min_k; a small
  // slice of s small_slice_cost x 4 / s (its beta pass and atomic adds).
  double large_slice_speed = 1.16;
  // The large tile's k slices only where its tiles cover at most this times the area of C the 64x64
  // tiles cover: on ragged C they ran slower than their count says (H200, rows copied aligned first:
  // 1023 x 1025 x 4093, 40 large tiles covering 1.25 of C in 3 slices, 0.70 of cuBLAS against 0.78
  // for 272 small tiles covering 1.06 in 4; 1279 x 1281 x 5117 0.72 against 0.81), where C that
  // fills them (3072 x 768 x 3152: 0.91 against 0.81) ran as counted.
  double large_split_max_cover = 1.05;
  double latency_penalty = 1.2;
  double small_slice_cost = 1.1;
};

namespace detail {
inline std::string decimal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}
// "2^e" for a power of two.
inline std::string power_of_two(long long x) {
  return "2^" + std::to_string(63 - __builtin_clzll(static_cast<unsigned long long>(x)));
}
}  // namespace detail

struct TuningRules {
  int arch;  // the architecture the values were measured on
  HopperRules hopper;
  CudaCoreRules cuda_cores;
  DecodeRules decode;

  std::string describe() const {
    const HopperRules& h = hopper;
    const CudaCoreRules& c = cuda_cores;
    return "rules measured on sm_" + std::to_string(arch) + ": Hopper wide tiles from " + h.wide_tiles.describe() +
           " rounds, 128x128 from " + h.medium_tiles.describe() + " rounds, 128x64 unless " +
           std::to_string(h.small_vs_medium_rounds) + "x the rounds of 128x128, 128x128 over wide tiles from k " +
           std::to_string(h.medium_min_k) + " below " + std::to_string(h.medium_vs_wide_rounds) +
           "x their rounds, ping-pong up to " + std::to_string(h.pingpong_max_rounds) + " rounds or " +
           std::to_string(h.pingpong_half_round) + "/" + std::to_string(h.pingpong_full_round) +
           " of half rounds (fused; 16-bit also to k " + std::to_string(h.fused_pingpong_max_k) +
           "), decode tiles up to m " + std::to_string(h.decode_max_m) + ", turned around up to m " +
           std::to_string(h.turned_max_m) + " (64x16 tiles to m " + std::to_string(h.turned_narrow_max_m) +
           ") and on 64x64 tiles from m " + std::to_string(h.turned_wide_min_m) + " to " +
           std::to_string(h.turned_wide_max_m) + " within " + h.turned_wide_tiles.describe() +
           " rounds, and over the decode kernel's tokens above " + h.turned_few_above.describe() + " within " +
           h.turned_few_within.describe() + " rounds (FP8 with tensor or row scales: 64x16 at any rounds, 64x32 "
           "within " + h.fp8_turned_tiles.describe() + ", 64x64 within " + h.fp8_turned_wide_tiles.describe() +
           "; FP8 past one 64-row tile, 128x128 from " + h.fp8_two_row_medium_tiles.describe() +
           " rounds or, block scales, from k " + std::to_string(h.fp8_two_row_block_min_k) + " within " +
           h.fp8_two_row_block_tiles.describe() + " rounds and from k " + std::to_string(h.fp8_two_row_block_long_k) +
           "), 128x192 (16-bit plain calls: or 192x128) below " +
           detail::decimal(h.balanced_gain) + " of the others' rounds x work / speed (speeds 128x256 " +
           detail::decimal(h.speed_wide) + ", 128x192 " + detail::decimal(h.speed_balanced) + ", 192x128 " +
           detail::decimal(h.speed_balanced_tall) + ", 128x128 " +
           detail::decimal(h.speed_medium) + ", 128x96 " + detail::decimal(h.speed_narrow) +
           ", ping-pong 128x128 at k " + std::to_string(h.pingpong_min_k) + " to " + std::to_string(h.pingpong_max_k) +
           " " + detail::decimal(h.speed_pingpong) + ", 128x96 below every other's cost, within a round from " +
           h.narrow_few_above.describe() + " of one of 128x128), k slices of 128x128 over 128x64 tiles at " +
           detail::decimal(h.split_medium_cost) + " per k block + " + std::to_string(h.split_overhead_blocks) +
           ", 128x128 with a split last round below " + detail::decimal(h.tail_gain) + " of the others' cost" +
           ", rows TMA cannot read on CUDA cores to k " + std::to_string(h.short_k_max_k) + " and " +
           detail::power_of_two(h.short_k_max_c) + " elements of C, on mma.sync to k " +
           std::to_string(h.unstaged_max_k) + " and " + detail::power_of_two(h.unstaged_max_flops) +
           " flops, a few rows on CUDA cores to m " + std::to_string(h.few_rows_max_m) + " and m^2 k " +
           std::to_string(h.few_rows_max_m2k) + "; fp32 large tiles from " +
           c.large_tiles.describe() + " rounds, dot products to m " + std::to_string(c.dot_rows_max_m) + " from k " +
           std::to_string(c.dot_rows_min_k) + ", skinny to m " + std::to_string(c.skinny_max_m) + " from k " +
           std::to_string(c.skinny_min_k) + ", copies from k " + std::to_string(c.pack_min_k) +
           ", large slices from k " + std::to_string(c.large_split_min_k) + " covering at most " +
           detail::decimal(c.large_split_max_cover) + " of the small tiles' area, small slices from k " +
           std::to_string(c.small_split_min_k) + ", slice weights " + detail::decimal(c.large_slice_speed) + "/" +
           detail::decimal(c.latency_penalty) + "/" + detail::decimal(c.small_slice_cost) + "; decode kernel to m " +
           std::to_string(decode.max_m);
  }
};

// The table: one entry per architecture whose values were measured; the others take the nearest
// measured one below them, and before any the first.
inline const TuningRules& rules_for(int arch) {
  static const TuningRules kTable[] = {
      TuningRules{90, HopperRules{}, CudaCoreRules{}, DecodeRules{}},  // H100 / H200 SXM, tools/plan_audit.cu
  };
  const TuningRules* best = &kTable[0];
  for (const TuningRules& r : kTable)
    if (r.arch <= arch) best = &r;
  return *best;
}

}  // namespace gemm
