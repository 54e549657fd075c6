// Policies describe themselves: benchmark labels and error messages name exactly what ran.
#include <set>
#include <string>
#include <gemm/gemm.cuh>
#include "../catch.hpp"

namespace {
template <class... P>
std::set<std::string> names(gemm::TypeList<P...>) {
  return {P::name()...};
}
template <class... P>
bool every_description_starts_with_its_name(gemm::TypeList<P...>) {
  return ((P::describe().rfind(std::string(P::name()) + ": ", 0) == 0) && ...);
}
}  // namespace

TEST_CASE("presets have distinct names and self-describing parameters", "[host][describe]") {
  CHECK(names(gemm::preset::All{}).size() == static_cast<size_t>(gemm::preset::All::size));
  CHECK(every_description_starts_with_its_name(gemm::preset::All{}));

  const std::string naive = gemm::preset::Naive::describe();
  CHECK(naive.find("RowPerLane") != std::string::npos);
  CHECK(gemm::preset::Coalesced::describe().find("ColumnPerLane") != std::string::npos);

  const std::string tile2d = gemm::preset::BlockTile2D::describe();
  CHECK(tile2d.find("TileShape<128,128,8,8,8>") != std::string::npos);
  CHECK(tile2d.find("ScalarLoader") != std::string::npos);

  const std::string warp = gemm::preset::WarpTiled::describe();
  CHECK(warp.find("WarpThreadMap<32,64,2,2>") != std::string::npos);

  const std::string multi = gemm::preset::MultiStage::describe();
  CHECK(multi.find("CpAsyncMultiStage<3>") != std::string::npos);
  CHECK(multi.find("Transposed<4>") != std::string::npos);
}

TEST_CASE("neighbouring tutorial presets differ in their parts", "[host][describe]") {
  using namespace gemm::preset;
  CHECK(Vectorized::parts() != BlockTile2D::parts());
  CHECK(BankConflictFree::parts() != Vectorized::parts());
  CHECK(DoubleBuffered::parts() != BankConflictFree::parts());
  CHECK(WarpTiled::parts() != DoubleBuffered::parts());
  CHECK(MultiStage::parts() != WarpTiled::parts());
}

TEST_CASE("policies report their shared memory and minimum architecture", "[host][describe]") {
  using namespace gemm::preset;
  CHECK(Naive::smem_bytes<float>() == 0);
  CHECK(SmemTiled::smem_bytes<float>() == 2 * 32 * 32 * 4);
  CHECK(SmemTiled::smem_bytes<double>() == 2 * 32 * 32 * 8);
  // three stages of a padded transposed A (8 x 132) and B (8 x 128)
  CHECK(MultiStage::smem_bytes<float>() == 3 * (8 * 132 + 8 * 128) * 4);
  CHECK(MultiStage::kMinArch == 80);
  CHECK(DoubleBuffered::kMinArch == 0);
}

TEST_CASE("the warp-level tensor-core presets name their parts, types and shared memory", "[host][describe]") {
  using namespace gemm::preset;
  const auto has = [](const std::string& s, const char* part) { return s.find(part) != std::string::npos; };
  CHECK(has(Wmma::describe(), "WmmaMath"));
  CHECK(has(Wmma::describe(), "CpAsyncMultiStage<3>"));
  CHECK(has(Wmma::describe(), "reject-misaligned"));
  CHECK(has(MmaSync::describe(), "MmaSyncMath"));
  CHECK(has(MmaSync::describe(), "MmaTile<128,256,128>"));
  CHECK(has(MmaSync::describe(), "WarpTile<64,64>"));
  CHECK(has(MmaSync::describe(), "CpAsyncFragmentPipeline<3>"));
  CHECK(has(Dmma::describe(), "DmmaMath"));
  CHECK(has(Dmma::describe(), "MmaTile<128,128,128>"));
  CHECK(has(Tuned::describe(), "DmmaMath"));
  CHECK(has(Tuned::describe(), "MmaSyncMath"));
  CHECK(has(Tuned::describe(), "ElementLoads<any-alignment>"));
  CHECK(has(Tuned::describe(), "AlignedOr<CpAsyncFragmentPipeline<4>,RegisterDoubleBuffer>"));
  // The copy label follows the pipeline: AlignedOr chooses per block, the others load one way.
  CHECK(has(Tuned::MmaMisaligned::parts(), "CpAsync<16B>-where-aligned|ElementLoads<any-alignment>"));
  CHECK_FALSE(has(MmaSync::parts(), "where-aligned"));
  CHECK_FALSE(has(gemm::MmaPolicy<gemm::MmaTile<64, 128, 64>, gemm::WarpTile<32, 64>, gemm::RegisterDoubleBuffer,
                                  gemm::MmaSyncMath, gemm::SwizzledRaster<8>>::parts(),
                  "where-aligned"));
  // Tuned names its Hopper compositions, the ping-pong one for fused calls included.
  CHECK(has(Tuned::describe(), "PersistentPingPong"));
  CHECK(Wmma::parts() != MultiStage::parts());
  CHECK(MmaSync::parts() != Wmma::parts());
  CHECK(Wmma::kMinArch == 80);
  CHECK(MmaSync::kMinArch == 80);
  CHECK(Dmma::kMinArch == 80);

  // bf16, fp16 (C in the input type or float) and tf32, never strict float; Dmma: double only.
  CHECK(MmaSync::kServes<__nv_bfloat16, __nv_bfloat16>);
  CHECK(MmaSync::kServes<__nv_bfloat16, float>);
  CHECK(MmaSync::kServes<__half, float>);
  CHECK(MmaSync::kServes<gemm::tf32, float>);
  CHECK_FALSE(MmaSync::kServes<float, float>);
  CHECK_FALSE(Wmma::kServes<float, float>);
  CHECK_FALSE(MmaSync::kServes<double, double>);
  CHECK(Dmma::kServes<double, double>);
  CHECK_FALSE(Dmma::kServes<float, float>);

  // Shared memory per block, the largest over the layouts of A and B, plus 128 bytes of alignment slack:
  // MmaSync: 3 stages of A (128 rows of 128 bytes) and B (64 rows of 512 bytes, or 256 of 128);
  CHECK(MmaSync::smem_bytes<__nv_bfloat16>() == 3 * (128 * 128 + 64 * 512) + 128);
  CHECK(MmaSync::smem_bytes<gemm::tf32>() == 3 * (128 * 128 + 32 * 1024) + 128);
  // Dmma: 4 stages of 128 x 16 doubles each for A and B;
  CHECK(Dmma::smem_bytes<double>() == 4 * 2 * 128 * 16 * 8 + 128);
  // Wmma: 3 stages of padded rows, largest with both operands K-major (128 rows of 64 + 16 bytes each).
  CHECK(Wmma::smem_bytes<__nv_bfloat16>() == 3 * 2 * 128 * 80 + 128);
  // Wmma fits the 99 KB a block may have on sm_86 and sm_89; MmaSync (144 KB) and Dmma need sm_80's
  // 163 KB or sm_90's 227 KB (Tuned takes smaller tiles there: see default_plan_test.cu).
  CHECK(MmaSync::smem_bytes<__nv_bfloat16>() > 99 * 1024);
  CHECK(MmaSync::smem_bytes<__nv_bfloat16>() <= 163 * 1024);
  CHECK(Wmma::smem_bytes<gemm::tf32>() <= 99 * 1024);
}
