// The mma family's address arithmetic, replayed on the host: the cp.async copies fill each operand
// tile exactly once and where the layout says; every fragment load (ldmatrix, ldmatrix.trans, 32- and
// 64-bit scalar loads, wmma's pointers and leading dimensions) hands each lane exactly the elements
// the PTX ISA's fragment layouts ask for; the swizzled layouts are free of bank conflicts for those
// loads and for the copies; and the accumulators cover each warp tile once. ldmatrix and mma.sync
// are modelled from the PTX ISA (see include/gemm/ptx/mma.cuh), so this checks our side of the
// contract: the GPU suite checks the whole.
#include <set>
#include <string>
#include <vector>
#include <gemm/gemm.cuh>
#include "../catch.hpp"

namespace {
using gemm::Op;
template <Op A, Op B>
using Ops = gemm::detail::Ops<A, B>;

constexpr long id(int mn, int k) { return static_cast<long>(mn) * 100000 + k; }

std::string where(int mn, int k) { return "(" + std::to_string(mn) + ", " + std::to_string(k) + ")"; }
std::string id_str(long v) { return v < 0 ? "nothing" : where(static_cast<int>(v / 100000), static_cast<int>(v % 100000)); }

// One operand tile of one stage as the block's copies fill it: for each element slot of shared memory,
// which (mn, k) of the tile it holds (-1: none). Checks that every element lands once, 16-byte aligned
// chunks, inside the tile, at Stage::element_offset; and that each 8-thread phase of a warp's 16-byte
// copies writes 8 different bank groups (swizzled layouts).
template <class Stage, int kThreads>
std::vector<long> fill_stage(bool check_copy_conflicts) {
  using Copy = gemm::mma::OperandCopy<Stage, kThreads>;
  using In = typename Stage::Element;
  constexpr int E = Stage::kElemsPerChunk;
  std::vector<long> who(Stage::kBytes / sizeof(In), -1);
  long written = 0;
  for (int tid = 0; tid < kThreads; ++tid)
    for (int i = 0; i < Copy::kIters; ++i) {
      const int row = Copy::row(tid, i), col = Copy::chunk(tid) * E;
      const int dst = Copy::dst_offset(tid, i);
      INFO("thread " << tid << " chunk " << i << " row " << row << " col " << col << " -> byte " << dst);
      REQUIRE(row < Stage::kRows);
      REQUIRE(dst % 16 == 0);
      REQUIRE(dst + 16 <= Stage::Layout::kBytes);
      for (int e = 0; e < E; ++e) {
        const int mn = Stage::kKMajor ? row : col + e, k = Stage::kKMajor ? col + e : row;
        const size_t slot = (dst + e * sizeof(In)) / sizeof(In);
        REQUIRE(who[slot] == -1);
        who[slot] = id(mn, k);
        REQUIRE(Stage::element_offset(mn, k) == static_cast<int>(slot * sizeof(In)));
        ++written;
      }
    }
  CHECK(written == static_cast<long>(Stage::kRows) * Stage::kCols);
  if (check_copy_conflicts) {
    // cp.async of 16 bytes: a warp's 32 chunks go to shared memory in 4 phases of 8 threads.
    for (int warp = 0; warp < kThreads / 32; ++warp)
      for (int i = 0; i < Copy::kIters; ++i)
        for (int phase = 0; phase < 4; ++phase) {
          std::set<int> groups;
          for (int l = 0; l < 8; ++l) groups.insert(Copy::dst_offset(32 * warp + 8 * phase + l, i) / 16 % 8);
          INFO("copy conflict: warp " << warp << " chunk " << i << " phase " << phase);
          CHECK(groups.size() == 8);
        }
  }
  return who;
}

template <class In>
long element_at(const std::vector<long>& who, int byte) {
  REQUIRE(byte % static_cast<int>(sizeof(In)) == 0);
  REQUIRE(byte >= 0);
  REQUIRE(static_cast<size_t>(byte / sizeof(In)) < who.size());
  return who[byte / sizeof(In)];
}

// ldmatrix.x4 as the PTX ISA defines it: lane 8j + i gives the address of row i of matrix j; lane l
// receives in register j row l / 4, 32 bits at byte 4 (l % 4) of matrix j (.trans: column l / 4 of
// rows 2 (l % 4) and 2 (l % 4) + 1, 16 bits each). Returns, per lane and register, the element slots
// (byte offsets) it reads: two 16-bit ones, or one 32-bit one (tf32, plain form only).
struct LdmatrixBytes {
  int bytes[32][4][2];
};
LdmatrixBytes ldmatrix(const int (&addr)[32], bool trans) {
  LdmatrixBytes r{};
  for (int l = 0; l < 32; ++l)
    for (int j = 0; j < 4; ++j) {
      if (!trans) {
        r.bytes[l][j][0] = addr[8 * j + l / 4] + 4 * (l % 4);
        r.bytes[l][j][1] = addr[8 * j + l / 4] + 4 * (l % 4) + 2;
      } else {
        r.bytes[l][j][0] = addr[8 * j + 2 * (l % 4)] + 2 * (l / 4);
        r.bytes[l][j][1] = addr[8 * j + 2 * (l % 4) + 1] + 2 * (l / 4);
      }
    }
  return r;
}

// The 8 rows of each ldmatrix phase (one matrix) fall in 8 different 16-byte bank groups.
void check_ldmatrix_conflicts(const int (&addr)[32]) {
  for (int j = 0; j < 4; ++j) {
    std::set<int> groups;
    for (int i = 0; i < 8; ++i) {
      REQUIRE(addr[8 * j + i] % 16 == 0);
      groups.insert(addr[8 * j + i] / 16 % 8);
    }
    INFO("ldmatrix phase " << j);
    CHECK(groups.size() == 8);
  }
}

// Scalar loads of `bytes` (4 or 8) by 32 lanes: 4-byte loads in one pass over 32 banks, 8-byte loads
// in two half-warp passes over 16 bank pairs; lanes reading the same word are a broadcast.
void check_scalar_conflicts(const int (&addr)[32], int bytes) {
  const int lanes = bytes == 8 ? 16 : 32;
  for (int half = 0; half < 32 / lanes; ++half) {
    std::set<int> words, banks;
    for (int l = half * lanes; l < (half + 1) * lanes; ++l) {
      if (words.insert(addr[l]).second) {
        const bool fresh = banks.insert(addr[l] / bytes % (128 / bytes)).second;
        INFO("scalar " << bytes << "-byte load: lane " << l << " at byte " << addr[l] << " conflicts");
        CHECK(fresh);
      }
    }
  }
}

// --- mma.sync ---------------------------------------------------------------------------------------

template <class T, class Policy, class Layouts>
void check_mma_sync(const char* label) {
  using Cfg = typename Policy::template Config<T, Layouts, true>;
  using W = typename Cfg::Warp;
  using In = typename W::In;
  using StageA = typename W::StageA;
  using StageB = typename W::StageB;
  const char* type = gemm::type_name<T, gemm::storage_t<T>>();
  INFO(label << " " << type << " op(A)=" << gemm::to_string(Layouts::a)
             << " op(B)=" << gemm::to_string(Layouts::b));
  const auto a_tile = fill_stage<StageA, Cfg::kThreads>(true);
  const auto b_tile = fill_stage<StageB, Cfg::kThreads>(true);
  constexpr int kSteps = W::BK / W::kK;
  std::vector<int> covered(Policy::Tile::BM * Policy::Tile::BN, 0);
  for (int warp = 0; warp < Cfg::kThreads / 32; ++warp) {
    const int wm0 = (warp / Cfg::kWarpsN) * W::WM, wn0 = (warp % Cfg::kWarpsN) * W::WN;
    INFO("warp " << warp << " at (" << wm0 << ", " << wn0 << ")");
    std::vector<gemm::LaneCursor<typename StageA::Layout>> ca;
    std::vector<gemm::LaneCursor<typename StageB::Layout>> cb;
    for (int l = 0; l < 32; ++l) {
      ca.emplace_back(W::a_lane(wm0, l));
      cb.emplace_back(W::b_lane(wn0, l));
    }
    for (int step = 0; step < kSteps; ++step) {
      INFO("k step " << step);
      // A: register r of tile mi holds (m g + 8 (r % 2), k) with k = 2t + 8 (r / 2) and 2t + 8 (r / 2) + 1
      // (16-bit) or k = t + 4 (r / 2) (tf32), relative to the tile and the step.
      for (int mi = 0; mi < W::MT; ++mi) {
        INFO("A tile " << mi);
        int addr[32][4];
        for (int l = 0; l < 32; ++l)
          for (int r = 0; r < 4; ++r) {
            REQUIRE(W::a_dr(mi, step, r) % StageA::Layout::kRowPeriod == 0);
            addr[l][r] = ca[l](W::a_dr(mi, step, r), W::a_dc(mi, step, r));
          }
        for (int l = 0; l < 32; ++l)
          for (int r = 0; r < 4; ++r) {
            const int g = l / 4, t = l % 4, m = wm0 + 16 * mi + g + 8 * (r % 2);
            INFO("lane " << l << " register " << r);
            if constexpr (W::kAScalar) {
              const int k = W::kK * step + t + 4 * (r / 2);
              CHECK(id_str(element_at<In>(a_tile, addr[l][r])) == where(m, k));
            } else {
              int rows[32];
              for (int x = 0; x < 32; ++x) rows[x] = addr[x][0];
              const LdmatrixBytes ld = ldmatrix(rows, !W::kAKMajor);
              if constexpr (sizeof(In) == 2) {
                const int k = W::kK * step + 2 * t + 8 * (r / 2);
                CHECK(id_str(element_at<In>(a_tile, ld.bytes[l][r][0])) == where(m, k));
                CHECK(id_str(element_at<In>(a_tile, ld.bytes[l][r][1])) == where(m, k + 1));
              } else {
                const int k = W::kK * step + t + 4 * (r / 2);
                CHECK(id_str(element_at<In>(a_tile, ld.bytes[l][r][0])) == where(m, k));
              }
            }
          }
        if constexpr (W::kAScalar) {
          for (int r = 0; r < 4; ++r) {
            int lane_addr[32];
            for (int l = 0; l < 32; ++l) lane_addr[l] = addr[l][r];
            check_scalar_conflicts(lane_addr, 4);
          }
        } else {
          int rows[32];
          for (int l = 0; l < 32; ++l) rows[l] = addr[l][0];
          check_ldmatrix_conflicts(rows);
        }
      }
      // B: register r of tile nj holds (k, n g) with k = 2t + 8r, 2t + 8r + 1 (16-bit) or t + 4r (tf32).
      // ldmatrix.x4 for pair p fills b[2p][0], b[2p][1], b[2p+1][0], b[2p+1][1].
      for (int nj = 0; nj < W::NT; ++nj)
        for (int r = 0; r < 2; ++r) {
          INFO("B tile " << nj << " register " << r);
          int lane_addr[32];
          if constexpr (W::kBScalar) {
            for (int l = 0; l < 32; ++l) {
              REQUIRE(W::b_dr(nj, step, r) % StageB::Layout::kRowPeriod == 0);
              lane_addr[l] = cb[l](W::b_dr(nj, step, r), W::b_dc(nj, step, r));
            }
            for (int l = 0; l < 32; ++l) {
              INFO("lane " << l);
              const int n = wn0 + 8 * nj + l / 4, k = W::kK * step + l % 4 + 4 * r;
              CHECK(id_str(element_at<In>(b_tile, lane_addr[l])) == where(n, k));
            }
            check_scalar_conflicts(lane_addr, 4);
          } else {
            const int p = nj / 2, reg = 2 * (nj % 2) + r;
            for (int l = 0; l < 32; ++l) {
              REQUIRE(W::b_dr(p, step, 0) % StageB::Layout::kRowPeriod == 0);
              lane_addr[l] = cb[l](W::b_dr(p, step, 0), W::b_dc(p, step, 0));
            }
            const LdmatrixBytes ld = ldmatrix(lane_addr, !W::kBKMajor);
            for (int l = 0; l < 32; ++l) {
              INFO("lane " << l);
              const int n = wn0 + 8 * nj + l / 4;
              if constexpr (sizeof(In) == 2) {
                const int k = W::kK * step + 2 * (l % 4) + 8 * r;
                CHECK(id_str(element_at<In>(b_tile, ld.bytes[l][reg][0])) == where(n, k));
                CHECK(id_str(element_at<In>(b_tile, ld.bytes[l][reg][1])) == where(n, k + 1));
              } else {
                const int k = W::kK * step + l % 4 + 4 * r;
                CHECK(id_str(element_at<In>(b_tile, ld.bytes[l][reg][0])) == where(n, k));
              }
            }
            if (nj % 2 == 0 && r == 0) check_ldmatrix_conflicts(lane_addr);
          }
        }
    }
    // The accumulators: d[mi][nj][r] at (acc_row, acc_col), each element of the block tile once.
    for (int l = 0; l < 32; ++l)
      for (int mi = 0; mi < W::MT; ++mi)
        for (int nj = 0; nj < W::NT; ++nj)
          for (int r = 0; r < 4; ++r) {
            const int row = W::acc_row(wm0, l, mi, r), col = W::acc_col(wn0, l, nj, r);
            CHECK(row == wm0 + 16 * mi + l / 4 + 8 * (r / 2));
            CHECK(col == wn0 + 8 * nj + 2 * (l % 4) + r % 2);
            ++covered[row * Policy::Tile::BN + col];
          }
  }
  for (int c : covered) CHECK(c == 1);
}

template <class T, class Policy>
void check_mma_sync_layouts(const char* label) {
  check_mma_sync<T, Policy, Ops<Op::N, Op::N>>(label);
  check_mma_sync<T, Policy, Ops<Op::N, Op::T>>(label);
  check_mma_sync<T, Policy, Ops<Op::T, Op::N>>(label);
  check_mma_sync<T, Policy, Ops<Op::T, Op::T>>(label);
}

// --- DMMA -------------------------------------------------------------------------------------------

template <class Policy, class Layouts>
void check_dmma(const char* label) {
  using Cfg = typename Policy::template Config<double, Layouts, true>;
  using W = typename Cfg::Warp;
  using StageA = typename W::StageA;
  using StageB = typename W::StageB;
  INFO(label << " op(A)=" << gemm::to_string(Layouts::a) << " op(B)=" << gemm::to_string(Layouts::b));
  const auto a_tile = fill_stage<StageA, Cfg::kThreads>(true);
  const auto b_tile = fill_stage<StageB, Cfg::kThreads>(true);
  std::vector<int> covered(Policy::Tile::BM * Policy::Tile::BN, 0);
  for (int warp = 0; warp < Cfg::kThreads / 32; ++warp) {
    const int wm0 = (warp / Cfg::kWarpsN) * W::WM, wn0 = (warp % Cfg::kWarpsN) * W::WN;
    INFO("warp " << warp);
    for (int step = 0; step < W::BK / W::kK; ++step) {
      for (int mi = 0; mi < W::MT; ++mi) {
        int addr[32];
        for (int l = 0; l < 32; ++l) {
          const gemm::LaneCursor<typename StageA::Layout> c(W::template lane_position<W::kAKMajor>(wm0, l));
          REQUIRE(W::template dr<W::kAKMajor>(mi, step) % StageA::Layout::kRowPeriod == 0);
          addr[l] = c(W::template dr<W::kAKMajor>(mi, step), W::template dc<W::kAKMajor>(mi, step));
          INFO("A tile " << mi << " step " << step << " lane " << l);
          CHECK(id_str(element_at<double>(a_tile, addr[l])) == where(wm0 + 8 * mi + l / 4, 4 * step + l % 4));
        }
        check_scalar_conflicts(addr, 8);
      }
      for (int nj = 0; nj < W::NT; ++nj) {
        int addr[32];
        for (int l = 0; l < 32; ++l) {
          const gemm::LaneCursor<typename StageB::Layout> c(W::template lane_position<W::kBKMajor>(wn0, l));
          REQUIRE(W::template dr<W::kBKMajor>(nj, step) % StageB::Layout::kRowPeriod == 0);
          addr[l] = c(W::template dr<W::kBKMajor>(nj, step), W::template dc<W::kBKMajor>(nj, step));
          INFO("B tile " << nj << " step " << step << " lane " << l);
          CHECK(id_str(element_at<double>(b_tile, addr[l])) == where(wn0 + 8 * nj + l / 4, 4 * step + l % 4));
        }
        check_scalar_conflicts(addr, 8);
      }
    }
    for (int l = 0; l < 32; ++l)
      for (int mi = 0; mi < W::MT; ++mi)
        for (int nj = 0; nj < W::NT; ++nj)
          for (int r = 0; r < 2; ++r)
            ++covered[W::acc_row(wm0, l, mi) * Policy::Tile::BN + W::acc_col(wn0, l, nj, r)];
  }
  for (int c : covered) CHECK(c == 1);
}

// --- WMMA -------------------------------------------------------------------------------------------

// load_matrix_sync(frag, p, ldm) reads element (i, j) of a row_major fragment at p[i * ldm + j] and
// of a col_major one at p[j * ldm + i]; p must be 32-byte aligned and ldm a multiple of 16 bytes.
template <class T, class Layouts>
void check_wmma() {
  using P = gemm::preset::Wmma;
  using Cfg = typename P::template Config<T, Layouts, true>;
  using W = typename Cfg::Warp;
  using In = typename W::In;
  const char* type = gemm::type_name<T, gemm::storage_t<T>>();
  INFO("Wmma " << type << " op(A)=" << gemm::to_string(Layouts::a)
               << " op(B)=" << gemm::to_string(Layouts::b));
  const auto a_tile = fill_stage<typename W::StageA, Cfg::kThreads>(false);
  const auto b_tile = fill_stage<typename W::StageB, Cfg::kThreads>(false);
  CHECK(W::kLdA * sizeof(In) % 16 == 0);
  CHECK(W::kLdB * sizeof(In) % 16 == 0);
  for (int warp = 0; warp < Cfg::kThreads / 32; ++warp) {
    const int wm0 = (warp / Cfg::kWarpsN) * W::WM, wn0 = (warp % Cfg::kWarpsN) * W::WN;
    for (int step = 0; step < W::BK / W::kK; ++step) {
      for (int mi = 0; mi < W::MT; ++mi) {
        const int p = W::a_offset(wm0, mi, step);
        CHECK(p % 32 == 0);
        for (int i = 0; i < 16; ++i)  // m
          for (int j = 0; j < W::kK; ++j) {  // k
            const int e = W::kAKMajor ? i * W::kLdA + j : j * W::kLdA + i;
            INFO("A tile " << mi << " step " << step << " element " << i << ", " << j);
            CHECK(id_str(element_at<In>(a_tile, p + e * static_cast<int>(sizeof(In)))) ==
                  where(wm0 + 16 * mi + i, W::kK * step + j));
          }
      }
      for (int nj = 0; nj < W::NT; ++nj) {
        const int p = W::b_offset(wn0, nj, step);
        CHECK(p % 32 == 0);
        for (int i = 0; i < W::kK; ++i)  // k
          for (int j = 0; j < 16; ++j) {  // n
            const int e = W::kBKMajor ? j * W::kLdB + i : i * W::kLdB + j;
            INFO("B tile " << nj << " step " << step << " element " << i << ", " << j);
            CHECK(id_str(element_at<In>(b_tile, p + e * static_cast<int>(sizeof(In)))) ==
                  where(wn0 + 16 * nj + j, W::kK * step + i));
          }
      }
    }
  }
  // The epilogue's per-warp buffers fit in the stages they reuse.
  CHECK(Cfg::kSmemBytes >= (Cfg::kThreads / 32) * W::kEpilogueBytesPerWarp);
}

template <class T>
void check_wmma_layouts() {
  check_wmma<T, Ops<Op::N, Op::N>>();
  check_wmma<T, Ops<Op::N, Op::T>>();
  check_wmma<T, Ops<Op::T, Op::N>>();
  check_wmma<T, Ops<Op::T, Op::T>>();
}

}  // namespace

TEST_CASE("MmaSync's copies and ldmatrix/scalar fragment loads give every lane its PTX fragment, conflict-free",
          "[host][mma]") {
  check_mma_sync_layouts<__nv_bfloat16, gemm::preset::MmaSync>("MmaSync");
  check_mma_sync_layouts<__half, gemm::preset::MmaSync>("MmaSync");
  check_mma_sync_layouts<gemm::tf32, gemm::preset::MmaSync>("MmaSync");
  check_mma_sync_layouts<__nv_bfloat16, gemm::preset::Tuned::MmaSmall>("Tuned::MmaSmall");
  check_mma_sync_layouts<gemm::tf32, gemm::preset::Tuned::MmaSmall>("Tuned::MmaSmall");
  // The register-staged composition stores each chunk where the copies would put it.
  check_mma_sync_layouts<__half, gemm::preset::Tuned::MmaMisaligned>("Tuned::MmaMisaligned");
}

TEST_CASE("Dmma's copies and 64-bit fragment loads give every lane its m8n8k4 fragment, conflict-free",
          "[host][mma]") {
  check_dmma<gemm::preset::Dmma, Ops<Op::N, Op::N>>("Dmma");
  check_dmma<gemm::preset::Dmma, Ops<Op::N, Op::T>>("Dmma");
  check_dmma<gemm::preset::Dmma, Ops<Op::T, Op::N>>("Dmma");
  check_dmma<gemm::preset::Dmma, Ops<Op::T, Op::T>>("Dmma");
  using Small = gemm::preset::Tuned::DoubleMmaSmall;
  check_dmma<Small, Ops<Op::N, Op::N>>("Tuned::DoubleMmaSmall");
  check_dmma<Small, Ops<Op::N, Op::T>>("Tuned::DoubleMmaSmall");
  check_dmma<Small, Ops<Op::T, Op::N>>("Tuned::DoubleMmaSmall");
  check_dmma<Small, Ops<Op::T, Op::T>>("Tuned::DoubleMmaSmall");
}

TEST_CASE("Wmma's fragment pointers and leading dimensions read the padded tiles the copies fill", "[host][mma]") {
  check_wmma_layouts<__nv_bfloat16>();
  check_wmma_layouts<__half>();
  check_wmma_layouts<gemm::tf32>();
}

TEST_CASE("the lane cursors' base-plus-constant form matches the layouts' offsets", "[host][mma]") {
  // offset(row0 + dr, chunk0 + dc) == cursor(dr, dc) for dr a multiple of the row period, any dc.
  auto check = [](auto layout_tag, int rows, int chunks) {
    using L = decltype(layout_tag);
    for (int row0 = 0; row0 < 16; ++row0)
      for (int chunk0 = 0; chunk0 < chunks; ++chunk0) {
        const gemm::LaneCursor<L> c(gemm::LanePosition{row0, chunk0, 0});
        for (int dr = 0; row0 + dr < rows; dr += L::kRowPeriod)
          for (int dc = 0; chunk0 + dc < chunks; ++dc) {
            INFO("row " << row0 << " + " << dr << ", chunk " << chunk0 << " + " << dc);
            CHECK(c(dr, dc) == L::offset(row0 + dr, chunk0 + dc));
          }
      }
  };
  check(gemm::LdmatrixSwizzle::Tile<32, 32>{}, 32, 2);
  check(gemm::LdmatrixSwizzle::Tile<32, 64>{}, 32, 4);
  check(gemm::LdmatrixSwizzle::Tile<32, 256>{}, 32, 16);
  check(gemm::PairSwizzle::Tile<32, 128>{}, 32, 8);
  check(gemm::PairSwizzle::Tile<32, 512>{}, 32, 32);
  check(gemm::PaddedRows::Tile<32, 64>{}, 32, 4);
}
