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
