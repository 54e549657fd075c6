// Batched GEMM (gemm::gemm_strided_batched, gemm::gemm_batched and their gemm::blas forms): every
// entry of every batch against the fp64 reference, every type and layout, and the refusals.
#include <algorithm>
#include <array>
#include <numeric>
#include "check.cuh"

namespace gemm_test {
namespace {

// One batched call: the per-entry case (sizes, scalars, padding, layouts, column-major entry point)
// and how the entries are laid out.
struct BatchCase {
  Case c;
  int batch = 3;
  long long gap_a = 0, gap_b = 0, gap_c = 0;  // elements between consecutive entries (padded strides)
  bool broadcast_a = false, broadcast_b = false;  // stride 0: one operand for every entry
  bool pointers = false;  // pointer arrays (entries in a shuffled order) instead of strides
  bool graph = false;     // capture the call in a CUDA graph, then replay it

  std::string str() const {
    std::ostringstream s;
    s << c.str() << " batch=" << batch << (pointers ? " pointer arrays" : " strided") << " gaps=" << gap_a << ","
      << gap_b << "," << gap_c << (broadcast_a ? " A broadcast" : "") << (broadcast_b ? " B broadcast" : "")
      << (graph ? " in a graph" : "");
    return s.str();
  }
};

// Which entry a batch is run through: the public ones (any layout, chosen at run time), or the
// library's batched entries with the layout fixed at compile time, for row-major calls with A as
// stored and B either way. The second compiles a policy's kernels for two layouts instead of four:
// the test of every preset's batches uses it (every preset's layouts are the preset tests' and
// Tuned's batches cover all four here).
enum class Entries { Public, TwoLayouts };

// The call itself, in the row-major frame of c (the column-major entry point gets C^T's arguments).
template <class T, class Policy, class Out, Entries kEntries = Entries::Public>
gemm::Status call(const BatchCase& bc, const gemm::storage_t<T>* A, long long sa, const gemm::storage_t<T>* B,
                  long long sb, Out* C, long long sc, const gemm::storage_t<T>* const* pa,
                  const gemm::storage_t<T>* const* pb, Out* const* pc, cudaStream_t stream) {
  const Case& c = bc.c;
  using S = gemm::scalar_t<T>;
  const S alpha = static_cast<S>(c.alpha), beta = static_cast<S>(c.beta);
  if constexpr (kEntries == Entries::TwoLayouts) {
    REQUIRE(!c.column_major);
    REQUIRE(c.op_a == Op::N);
    const auto fixed = [&](auto layouts) {
      using L = decltype(layouts);
      if (bc.pointers)
        return gemm::detail::pointer_batched<T, Policy, Out, L>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, pa, c.lda(), pb,
                                                                c.ldb(), beta, pc, c.ldc(), bc.batch, stream);
      return gemm::detail::strided_batched<T, Policy, Out, L>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, A, c.lda(), sa, B,
                                                              c.ldb(), sb, beta, C, c.ldc(), sc, bc.batch, stream);
    };
    return c.op_b == Op::N ? fixed(gemm::detail::Ops<Op::N, Op::N>{}) : fixed(gemm::detail::Ops<Op::N, Op::T>{});
  } else {
    if (bc.pointers) {
      if (c.column_major)
        return gemm::blas::gemm_batched<T, Policy>(c.op_b, c.op_a, c.n, c.m, c.k, alpha, pb, c.ldb(), pa, c.lda(), beta,
                                                   pc, c.ldc(), bc.batch, stream);
      return gemm::gemm_batched<T, Policy>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, pa, c.lda(), pb, c.ldb(), beta, pc,
                                           c.ldc(), bc.batch, stream);
    }
    if (c.column_major)
      return gemm::blas::gemm_strided_batched<T, Policy>(c.op_b, c.op_a, c.n, c.m, c.k, alpha, B, c.ldb(), sb, A,
                                                         c.lda(), sa, beta, C, c.ldc(), sc, bc.batch, stream);
    return gemm::gemm_strided_batched<T, Policy>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, A, c.lda(), sa, B, c.ldb(), sb,
                                                 beta, C, c.ldc(), sc, bc.batch, stream);
  }
}

// Runs the batch and checks every entry of C against the fp64 reference (the same error model as
// run_case), and that nothing between or around the entries was written.
// refusable: the policy may instead refuse the call with one of these statuses, having launched
// nothing and written nothing.
template <class Policy, class T, class Out = gemm::storage_t<T>, Entries kEntries = Entries::Public>
void run_batch(const BatchCase& bc, std::vector<gemm::Status> refusable = {}) {
  using In = gemm::storage_t<T>;
  const Case& c = bc.c;
  const char* type = gemm::type_name<T, Out>();
  INFO(Policy::name() << "<" << type << "> " << bc.str());
  const int lda = c.lda(), ldb = c.ldb(), ldc = c.ldc();
  const long long entry_a = static_cast<long long>(c.a_rows()) * lda, entry_b = static_cast<long long>(c.b_rows()) * ldb;
  const long long entry_c = static_cast<long long>(c.m) * ldc;
  const long long sa = bc.broadcast_a ? 0 : entry_a + bc.gap_a, sb = bc.broadcast_b ? 0 : entry_b + bc.gap_b;
  const long long sc = entry_c + bc.gap_c;
  const int na = bc.broadcast_a ? 1 : bc.batch, nb = bc.broadcast_b ? 1 : bc.batch;
  // Slot e of a buffer holds one entry; with pointer arrays entry b sits in slot perm[b].
  std::vector<int> perm(bc.batch);
  std::iota(perm.begin(), perm.end(), 0);
  if (bc.pointers) std::shuffle(perm.begin(), perm.end(), rng());
  const size_t a_elems = c.offset_a + static_cast<size_t>(std::max(0, na - 1)) * std::max(sa, entry_a) + entry_a;
  const size_t b_elems = c.offset_b + static_cast<size_t>(std::max(0, nb - 1)) * std::max(sb, entry_b) + entry_b;
  const size_t c_elems = c.offset_c + static_cast<size_t>(bc.batch) * sc + ldc;  // and a guard row
  std::vector<In> a(std::max<size_t>(a_elems, 1)), b(std::max<size_t>(b_elems, 1));
  std::vector<Out> c0(std::max<size_t>(c_elems, 1), sentinel<Out>());
  fill_random(a);
  fill_random(b);
  const auto slot_a = [&](int e) { return c.offset_a + static_cast<size_t>(bc.broadcast_a ? 0 : perm[e]) * std::max(sa, entry_a); };
  const auto slot_b = [&](int e) { return c.offset_b + static_cast<size_t>(bc.broadcast_b ? 0 : perm[e]) * std::max(sb, entry_b); };
  const auto slot_c = [&](int e) { return c.offset_c + static_cast<size_t>(perm[e]) * sc; };
  for (int e = 0; e < bc.batch; ++e) fill_c(c0, slot_c(e), c.m, c.n, ldc, c.nan_in_c);

  DeviceBuffer<In> da(a.size()), db(b.size());
  DeviceBuffer<Out> dc(c0.size());
  upload(da, a);
  upload(db, b);
  upload(dc, c0);
  std::vector<const In*> pa(bc.batch), pb(bc.batch);
  std::vector<Out*> pc(bc.batch);
  for (int e = 0; e < bc.batch; ++e) pa[e] = da.ptr + slot_a(e), pb[e] = db.ptr + slot_b(e), pc[e] = dc.ptr + slot_c(e);
  DeviceBuffer<const In*> dpa(std::max(1, bc.batch)), dpb(std::max(1, bc.batch));
  DeviceBuffer<Out*> dpc(std::max(1, bc.batch));
  upload(dpa, pa);
  upload(dpb, pb);
  upload(dpc, pc);

  const In* A = da.ptr + c.offset_a;
  const In* B = db.ptr + c.offset_b;
  Out* C = dc.ptr + c.offset_c;
  gemm::Status status;
  const unsigned long long launches = gemm::kernel_launches();
  if (bc.graph) {
    cudaStream_t stream;
    CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph;
    CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    status = call<T, Policy, Out, kEntries>(bc, A, sa, B, sb, C, sc, dpa.ptr, dpb.ptr, dpc.ptr, stream);
    CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
    // Capturing ran nothing: C is still the poisoned input. Replay twice (beta = 0: idempotent).
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    CUDA_REQUIRE(cudaGraphExecDestroy(exec));
    CUDA_REQUIRE(cudaGraphDestroy(graph));
    CUDA_REQUIRE(cudaStreamDestroy(stream));
  } else {
    status = call<T, Policy, Out, kEntries>(bc, A, sa, B, sb, C, sc, dpa.ptr, dpb.ptr, dpc.ptr, 0);
  }
  INFO("status: " << gemm::to_string(status));
  CUDA_REQUIRE(cudaGetLastError());
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<Out> out(c0.size());
  CUDA_REQUIRE(cudaMemcpy(out.data(), dc.ptr, out.size() * sizeof(Out), cudaMemcpyDeviceToHost));
  if (status != gemm::Status::Success && std::count(refusable.begin(), refusable.end(), status) > 0) {
    CHECK(gemm::kernel_launches() == launches);
    CHECK(std::memcmp(out.data(), c0.data(), out.size() * sizeof(Out)) == 0);
    return;
  }
  REQUIRE(status == gemm::Status::Success);

  const bool ta = c.op_a == Op::T, tb = c.op_b == Op::T;
  std::vector<double> abs_a(a.size()), abs_b(b.size());
  for (size_t i = 0; i < a.size(); ++i) abs_a[i] = std::fabs(to_double(a[i]));
  for (size_t i = 0; i < b.size(); ++i) abs_b[i] = std::fabs(to_double(b[i]));
  std::vector<double> ref(static_cast<size_t>(c.m) * c.n), mag(ref.size());
  const ErrorModel<T, Out> model;
  long long wrong = 0;
  std::ostringstream first;
  std::vector<char> inside(out.size(), 0);
  const int threads = bc.batch > 64 ? 1 : 0;  // many tiny entries: no thread pool per entry
  for (int e = 0; e < bc.batch; ++e) {
    const Out* C0 = c0.data() + slot_c(e);
    gemm::reference::gemm<In, Out>(ta, tb, c.m, c.n, c.k, c.alpha, a.data() + slot_a(e), lda, b.data() + slot_b(e), ldb,
                                   c.beta, c.beta != 0 ? C0 : nullptr, ldc, ref.data(), c.n, threads);
    gemm::reference::gemm<double, double>(ta, tb, c.m, c.n, c.k, std::fabs(c.alpha), abs_a.data() + slot_a(e), lda,
                                          abs_b.data() + slot_b(e), ldb, 0.0, nullptr, 1, mag.data(), c.n, threads);
    for (int i = 0; i < c.m; ++i)
      for (int j = 0; j < c.n; ++j) {
        const size_t at = slot_c(e) + static_cast<size_t>(i) * ldc + j;
        inside[at] = 1;
        const double got = to_double(out[at]), want = ref[static_cast<size_t>(i) * c.n + j];
        const double beta_c = c.beta != 0 ? std::fabs(c.beta * to_double(c0[at])) : 0.0;
        const double bound = model.element(c.k, mag[static_cast<size_t>(i) * c.n + j], beta_c, want);
        if (!(std::fabs(got - want) <= bound)) {  // NaN fails too
          if (wrong < 5)
            first << "  entry " << e << " C(" << i << "," << j << ") = " << got << ", expected " << want << "\n";
          ++wrong;
        }
      }
  }
  long long stray = 0;
  for (size_t i = 0; i < out.size(); ++i)
    if (!inside[i] && std::memcmp(&out[i], &c0[i], sizeof(Out)) != 0) {
      if (stray < 3) first << "  write outside every entry at element " << i << "\n";
      ++stray;
    }
  INFO("wrong elements: " << wrong << ", stray writes: " << stray << "\n" << first.str());
  CHECK(wrong == 0);
  CHECK(stray == 0);
}

// Ragged sizes, padded strides, broadcast operands, misaligned entries, beta = 0 over NaN, k = 0,
// alpha = 0, batch = 1; each through strides and through shuffled pointer arrays.
std::vector<BatchCase> batch_cases() {
  std::vector<BatchCase> cases;
  const auto add = [&](Case c, int batch, long long ga, long long gb, long long gc, bool bcast_a = false,
                       bool bcast_b = false) {
    BatchCase bc{c, batch, ga, gb, gc, bcast_a, bcast_b};
    cases.push_back(bc);
    if (!bcast_a && !bcast_b) {
      bc.pointers = true;
      cases.push_back(bc);
    }
  };
  add(Case{1, 1, 1}, 5, 0, 0, 0);
  add(Case{7, 13, 29, 0.5, 1.0, 3, 1, 2}, 4, 5, 3, 7);                                  // ragged, padded, odd gaps
  add(Case{65, 63, 9, -1.25, 0.0, 0, 0, 0, 0, 0, 0, true}, 3, 8, 8, 8);                 // beta = 0 over NaN
  add(Case{127, 129, 131, 2.0, -0.75, 6, 4, 4}, 3, 16, 0, 4);
  add(Case{256, 256, 64, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, 6, 0, 0, 0);                // whole tiles, TMA-aligned
  add(Case{200, 136, 72, -1.5, 0.5, 8, 8, 8}, 5, 64, 32, 16, true, false);              // A broadcast
  add(Case{200, 136, 72, 1.0, 0.0, 8, 8, 8, 0, 0, 0, true}, 5, 64, 32, 16, false, true); // B broadcast
  add(Case{129, 131, 67, 1.0, 0.0, 1, 0, 0, 1, 0, 0, true}, 3, 1, 1, 1);                 // misaligned everything
  add(Case{300, 260, 100, 1.0, 1.0}, 1, 0, 0, 0);                                        // batch = 1
  add(Case{33, 17, 0, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, 4, 0, 0, 0);                    // k = 0, beta = 0 over NaN
  add(Case{33, 17, 0, 1.0, 2.5}, 4, 0, 0, 3);                                            // k = 0, beta = 2.5
  add(Case{20, 30, 40, 0.0, -1.0}, 3, 0, 0, 0);                                          // alpha = 0
  return cases;
}

template <class Policy, class T, class Out = gemm::storage_t<T>>
void check_batches() {
  const std::vector<BatchCase> cases = batch_cases();
  for (const BatchCase& bc : cases) run_batch<Policy, T, Out>(bc);
  // Every layout, through both entry points, on a ragged and a padded case.
  const Op ops[2] = {Op::N, Op::T};
  for (Op oa : ops)
    for (Op ob : ops)
      for (bool col : {false, true})
        for (int i : {1, 4, 6}) {
          BatchCase bc = cases[i];
          bc.c = bc.c.with_ops(oa, ob, col);
          run_batch<Policy, T, Out>(bc);
          bc.pointers = !bc.pointers;
          run_batch<Policy, T, Out>(bc);
        }
}

}  // namespace
}  // namespace gemm_test

using gemm_test::BatchCase;
using gemm_test::Case;
using gemm_test::check_batches;
using gemm_test::run_batch;
using gemm_test::Entries;
using gemm::Op;

TEST_CASE("Batched Tuned<float>: every entry, every layout, strided and pointer arrays", "[gpu][batched][float]") {
  check_batches<gemm::preset::Tuned, float>();
}
TEST_CASE("Batched Tuned<double>", "[gpu][batched][double]") { check_batches<gemm::preset::Tuned, double>(); }
TEST_CASE("Batched Tuned<tf32>", "[gpu][batched][tf32]") { check_batches<gemm::preset::Tuned, gemm::tf32>(); }
TEST_CASE("Batched Tuned<tf32x3>", "[gpu][batched][tf32x3]") { check_batches<gemm::preset::Tuned, gemm::tf32x3>(); }
TEST_CASE("Batched Tuned<bf16>, bf16 and float C", "[gpu][batched][bf16]") {
  check_batches<gemm::preset::Tuned, __nv_bfloat16>();
  check_batches<gemm::preset::Tuned, __nv_bfloat16, float>();
}
TEST_CASE("Batched Tuned<half>, half and float C", "[gpu][batched][half]") {
  check_batches<gemm::preset::Tuned, __half>();
  check_batches<gemm::preset::Tuned, __half, float>();
}

// Shapes that pick the large compositions (Tuned's Hopper tiles, stream-K's float tile, the split-K
// skinny tile) inside a batch.
TEST_CASE("Batched Tuned on the large compositions", "[gpu][batched][large]") {
  BatchCase big{Case{512, 512, 256, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, 8};
  run_batch<gemm::preset::Tuned, __nv_bfloat16>(big);
  run_batch<gemm::preset::Tuned, gemm::tf32>(BatchCase{Case{512, 512, 256, 1.0, 0.5}.with_ops(Op::N, Op::T), 8});
  run_batch<gemm::preset::Tuned, float>(big);
  run_batch<gemm::preset::Tuned, float>(BatchCase{Case{8, 512, 2048, 1.0, -0.5}, 3});    // m <= 16, long k: split-K
  run_batch<gemm::preset::Tuned, float>(BatchCase{Case{512, 512, 64, 1.0, 0.5}, 24});    // 192 large tiles: 128x128
  run_batch<gemm::preset::Tuned, float>(BatchCase{Case{508, 260, 100, 1.0, 0.5}, 30});   // the same, ragged
  run_batch<gemm::preset::Tuned, float>(BatchCase{Case{512, 512, 2048, 1.0, 0.5}, 4});   // large tiles, split k
  run_batch<gemm::preset::Tuned, float>(BatchCase{Case{512, 512, 64, 1.0, 0.5}.with_ops(Op::N, Op::T), 24});
  run_batch<gemm::preset::Tuned, double>(big);
}

// Pointer-array entries whose rows are 16-byte aligned take cp.async, the others element loads
// (Tuned::MmaMisaligned decides per block): one batch mixes both, in A alone, in B alone, and in both;
// then every entry aligned, ragged, every layout.
TEST_CASE("Pointer arrays whose entries differ in alignment", "[gpu][batched][bf16][half]") {
  for (const auto& gaps : {std::array<long long, 3>{1, 0, 0}, {0, 3, 0}, {5, 1, 2}, {8, 8, 8}}) {
    BatchCase bc{Case{200, 136, 72, 1.0, 0.5, 8, 8, 8}, 9, gaps[0], gaps[1], gaps[2]};
    bc.pointers = true;
    run_batch<gemm::preset::Tuned, __nv_bfloat16>(bc);
    run_batch<gemm::preset::Tuned, __half, float>(bc);
  }
  const Op ops[2] = {Op::N, Op::T};
  for (Op oa : ops)
    for (Op ob : ops) {
      BatchCase bc{Case{130, 260, 136, -1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(oa, ob), 5, 8, 16, 1};
      bc.pointers = true;
      run_batch<gemm::preset::Tuned, __nv_bfloat16>(bc);
      bc.gap_a = 3;
      run_batch<gemm::preset::Tuned, __half>(bc);
    }
}

// Points the pointer arrays at consecutive entries (a kernel, so that the GEMM after it in the
// stream must wait for it).
__global__ void point_entries(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int ea, int eb, int ec,
                              int batch, const __nv_bfloat16** pa, const __nv_bfloat16** pb, __nv_bfloat16** pc) {
  for (int e = threadIdx.x; e < batch; e += blockDim.x) {
    pa[e] = a + static_cast<long long>(e) * ea;
    pb[e] = b + static_cast<long long>(e) * eb;
    pc[e] = c + static_cast<long long>(e) * ec;
  }
}

// On sm_90, pointer arrays whose rows are 16-byte multiples run the Hopper kernel through one address
// map per operand (sm90/tensor_map.cuh); entries whose A or B is not 16-byte aligned are loaded by
// the producer's threads, and C that TMA cannot store is stored by the consumers. Several tiles and
// k blocks per entry, the large and the medium composition, every layout, misaligned A, B, C alone
// and together, beta != 0, work lists longer than the grid, and entries smaller than one tile (whose
// boxes wholly outside the entry must not be copied: TMA faults on them through an address map).
TEST_CASE("Pointer arrays on the Hopper kernel, aligned and misaligned entries", "[gpu][batched][bf16][hopper]") {
  const Op ops[2] = {Op::N, Op::T};
  for (Op oa : ops)
    for (Op ob : ops)
      for (const auto& gaps : {std::array<long long, 3>{0, 0, 0}, {3, 0, 0}, {0, 5, 0}, {0, 0, 7}, {1, 2, 3}}) {
        BatchCase mid{Case{296, 264, 200, 1.0, 0.0, 8, 16, 8, 0, 0, 0, true}.with_ops(oa, ob), 7, gaps[0], gaps[1],
                      gaps[2]};
        mid.pointers = true;
        run_batch<gemm::preset::Tuned, __nv_bfloat16>(mid);
        mid.c.beta = -0.5;
        mid.c.nan_in_c = false;
        run_batch<gemm::preset::Tuned, __half, float>(mid);
      }
  BatchCase large{Case{512, 512, 320, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, 20, 8, 0, 8};  // 160 tiles of 128x256
  large.pointers = true;
  run_batch<gemm::preset::Tuned, __nv_bfloat16>(large);
  large.gap_a = 3;
  run_batch<gemm::preset::Tuned, __nv_bfloat16>(large);
  BatchCase tf{Case{130, 200, 100, 1.0, 0.5, 4, 4, 4}.with_ops(Op::N, Op::T), 5, 1, 2, 3};  // tf32: 4-byte elements
  tf.pointers = true;
  run_batch<gemm::preset::Tuned, gemm::tf32>(tf);
  for (Op oa : ops)
    for (Op ob : ops)
      for (const auto& gaps : {std::array<long long, 3>{0, 0, 0}, {1, 2, 3}}) {
        // 56 x 72 entries in 128 x 256 tiles: boxes and store chunks wholly outside on both sides.
        BatchCase tiny{Case{56, 72, 88, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(oa, ob), 9, gaps[0], gaps[1],
                       gaps[2]};
        tiny.pointers = true;
        run_batch<gemm::preset::Tuned::Hopper, __nv_bfloat16>(tiny);
        tiny.c.beta = 0.5;
        tiny.c.nan_in_c = false;
        run_batch<gemm::preset::Tuned::HopperMedium, __nv_bfloat16>(tiny);
      }

  // Pointer arrays written by a kernel just before the call, in the same stream: the GEMM kernel may
  // start early (programmatic dependent launch) but must read them after that kernel.
  {
    using In = __nv_bfloat16;
    const int m = 256, n = 256, k = 128, batch = 6;
    std::vector<In> a(static_cast<size_t>(batch) * m * k), b(static_cast<size_t>(batch) * k * n);
    gemm_test::fill_random(a);
    gemm_test::fill_random(b);
    gemm_test::DeviceBuffer<In> da(a.size()), db(b.size()), dc(static_cast<size_t>(batch) * m * n);
    gemm_test::upload(da, a);
    gemm_test::upload(db, b);
    gemm_test::DeviceBuffer<const In*> pa(batch), pb(batch);
    gemm_test::DeviceBuffer<In*> pc(batch);
    CUDA_REQUIRE(cudaMemset(pa.ptr, 0, batch * sizeof(In*)));  // null until the kernel below runs
    CUDA_REQUIRE(cudaMemset(pb.ptr, 0, batch * sizeof(In*)));
    CUDA_REQUIRE(cudaMemset(pc.ptr, 0, batch * sizeof(In*)));
    cudaStream_t stream;
    CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    point_entries<<<1, 32, 0, stream>>>(da.ptr, db.ptr, dc.ptr, m * k, k * n, m * n, batch, pa.ptr, pb.ptr,
                                                   pc.ptr);
    CUDA_REQUIRE(cudaGetLastError());
    REQUIRE(gemm::gemm_batched<In>(Op::N, Op::N, m, n, k, 1.0f, pa.ptr, k, pb.ptr, n, 0.0f, pc.ptr, n, batch, stream) ==
            gemm::Status::Success);
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    CUDA_REQUIRE(cudaStreamDestroy(stream));
    std::vector<In> out(static_cast<size_t>(batch) * m * n);
    CUDA_REQUIRE(cudaMemcpy(out.data(), dc.ptr, out.size() * sizeof(In), cudaMemcpyDeviceToHost));
    long long wrong = 0;
    for (int e = 0; e < batch; ++e)
      for (int i = 0; i < m; i += 51)
        for (int j = 0; j < n; j += 37) {
          double want = 0, mag = 0;
          for (int p = 0; p < k; ++p) {
            const double x = gemm_test::to_double(a[(static_cast<size_t>(e) * m + i) * k + p]);
            const double y = gemm_test::to_double(b[(static_cast<size_t>(e) * k + p) * n + j]);
            want += x * y, mag += std::fabs(x * y);
          }
          const double got = gemm_test::to_double(out[(static_cast<size_t>(e) * m + i) * n + j]);
          if (!(std::fabs(got - want) <= 1e-2 * mag + 1e-6)) ++wrong;  // bf16 output: 2^-8 of the magnitude
        }
    CHECK(wrong == 0);
  }

  // Which path runs (gemm::plan_batched, the same decision as the call): on sm_90 the Hopper kernel;
  // entries smaller than a 128x128 tile take mma.sync. Either is one launch.
  if (gemm_test::is_sm90()) {
    gemm_test::DeviceBuffer<__nv_bfloat16> a(256 * 256), c(256 * 256);
    const std::vector<__nv_bfloat16> ones(256 * 256, __float2bfloat16(1.0f));
    CUDA_REQUIRE(cudaMemcpy(a.ptr, ones.data(), ones.size() * 2, cudaMemcpyHostToDevice));
    const __nv_bfloat16* pa[1] = {a.ptr};
    __nv_bfloat16* pc[1] = {c.ptr};
    gemm_test::DeviceBuffer<const __nv_bfloat16*> arr(1);
    gemm_test::DeviceBuffer<__nv_bfloat16*> carr(1);
    CUDA_REQUIRE(cudaMemcpy(arr.ptr, pa, sizeof(pa), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(carr.ptr, pc, sizeof(pc), cudaMemcpyHostToDevice));
    for (int size : {256, 64}) {
      const gemm::Plan plan = gemm::plan_batched<__nv_bfloat16>(Op::N, Op::N, size, size, 64, 1.0f, arr.ptr, 256,
                                                                arr.ptr, 256, 0.0f, carr.ptr, 256, 1);
      INFO(plan.describe());
      CHECK(plan.status == gemm::Status::Success);
      CHECK(plan.composition.find(size == 256 ? "HopperPolicy" : "MmaPolicy") != std::string::npos);
      const unsigned long long before = gemm::kernel_launches();
      REQUIRE(gemm::gemm_batched<__nv_bfloat16>(Op::N, Op::N, size, size, 64, 1.0f, arr.ptr, 256, arr.ptr, 256, 0.0f,
                                                carr.ptr, 256, 1) == gemm::Status::Success);
      CHECK(gemm::kernel_launches() - before == 1u);
      CUDA_REQUIRE(cudaDeviceSynchronize());
      std::vector<__nv_bfloat16> out(256 * 256);
      CUDA_REQUIRE(cudaMemcpy(out.data(), c.ptr, out.size() * 2, cudaMemcpyDeviceToHost));
      CHECK(__bfloat162float(out[(size - 1) * 256 + size - 1]) == 64.0f);  // a row of ones times a column of ones
    }
  }
}

TEST_CASE("A batch beyond the grid's 65535 rows of tiny matrices", "[gpu][batched][many]") {
  BatchCase bc{Case{3, 5, 7, 1.0, 0.5}, 70001, 1, 2, 3};
  run_batch<gemm::preset::Tuned, float>(bc);
  bc.pointers = true;
  run_batch<gemm::preset::Tuned, __nv_bfloat16>(bc);
  BatchCase wide{Case{16, 24, 32, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, 66000};
  run_batch<gemm::preset::Tuned, __half>(wide);  // TMA-aligned: the Hopper kernel on sm_90
}

TEST_CASE("A batched call captured in a CUDA graph and replayed", "[gpu][batched][graph]") {
  BatchCase bc{Case{129, 130, 67, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, 4};
  bc.graph = true;
  run_batch<gemm::preset::Tuned, __nv_bfloat16>(bc);
  run_batch<gemm::preset::Tuned, float>(bc);
  bc.pointers = true;
  run_batch<gemm::preset::Tuned, __nv_bfloat16>(bc);
  BatchCase tiles{Case{256, 256, 64, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, 3};
  tiles.graph = true;
  run_batch<gemm::preset::Tuned, gemm::tf32x3>(tiles);
  run_batch<gemm::preset::Tuned, __half>(tiles);  // the Hopper kernel on sm_90
  // Pointer arrays on sm_90: the per-entry maps' kernel and the GEMM kernel it overlaps
  // (programmatic dependent launch) as graph nodes; one entry misaligned (loaded without TMA).
  tiles.pointers = true;
  run_batch<gemm::preset::Tuned, __half>(tiles);
  tiles.gap_a = 1;
  run_batch<gemm::preset::Tuned, __nv_bfloat16>(tiles);
}

// Every preset either computes a batch correctly or refuses it with a status before any launch:
// the Hopper presets refuse what their 3-D tensor maps cannot read (pointer arrays, misaligned or
// staged operands), presets whose copies need 16-byte rows refuse pointer arrays (their entries'
// alignment is unknown on the host) and misaligned rows.
template <class T, class Out, class... P>
void every_preset(gemm::TypeList<P...>) {
  using gemm::Status;
  const std::vector<Status> refusable = {Status::UnsupportedBatch, Status::MisalignedA, Status::MisalignedB,
                                         Status::MisalignedC, Status::UnsupportedArchitecture};
  std::vector<BatchCase> cases = {BatchCase{Case{67, 70, 33, 1.0, 0.5, 5, 2, 0}, 3, 8, 8, 8},
                                  BatchCase{Case{128, 128, 64, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T), 3}};
  for (int i = 0; i < 2; ++i) cases.push_back(cases[i]), cases.back().pointers = true;
  const auto one = [&](auto policy) {
    using Policy = decltype(policy);
    // (Tuned through the public entries: its kernels for them are compiled once, in gemm_instances.)
    constexpr Entries kEntries = std::is_same_v<Policy, gemm::preset::Tuned> ? Entries::Public : Entries::TwoLayouts;
    for (const BatchCase& bc : cases) run_batch<Policy, T, Out, kEntries>(bc, refusable);
  };
  (one(P{}), ...);
}

TEST_CASE("Every preset runs a batch correctly or refuses it", "[gpu][batched][presets]") {
  every_preset<float, float>(gemm::preset::AllServing<float>{});
  every_preset<double, double>(gemm::preset::AllServing<double>{});
  every_preset<__nv_bfloat16, __nv_bfloat16>(gemm::preset::AllServing<__nv_bfloat16>{});
  every_preset<gemm::tf32, float>(gemm::preset::AllServing<gemm::tf32>{});
}

TEST_CASE("Batched bad input: a status before any launch, nothing written", "[gpu][batched][status]") {
  using gemm::Status;
  gemm_test::DeviceBuffer<float> a(4096), b(4096), c(4096);
  const std::vector<float> poison(4096, -7.0f);
  CUDA_REQUIRE(cudaMemcpy(c.ptr, poison.data(), 4096 * sizeof(float), cudaMemcpyHostToDevice));
  const float* pa[1] = {a.ptr};
  gemm_test::DeviceBuffer<const float*> arr(4);
  CUDA_REQUIRE(cudaMemcpy(arr.ptr, pa, sizeof(pa), cudaMemcpyHostToDevice));
  float* pc[1] = {c.ptr};
  gemm_test::DeviceBuffer<float*> carr_buf(4);
  CUDA_REQUIRE(cudaMemcpy(carr_buf.ptr, pc, sizeof(pc), cudaMemcpyHostToDevice));
  float* const* carr = carr_buf.ptr;
  const unsigned long long before = gemm::kernel_launches();
  const auto strided = [&](int batch, long long sa, long long sb, long long sc) {
    return gemm::gemm_strided_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, a.ptr, 8, sa, b.ptr, 8, sb, 0.0f, c.ptr, 8, sc,
                                             batch);
  };
  CHECK(strided(-1, 64, 64, 64) == Status::InvalidBatchCount);
  CHECK(strided(2, -64, 64, 64) == Status::InvalidStrideA);
  CHECK(strided(2, 64, -1, 64) == Status::InvalidStrideB);
  CHECK(strided(2, 64, 64, -64) == Status::InvalidStrideC);
  CHECK(strided(2, 64, 64, 0) == Status::InvalidStrideC);   // every entry's C at one place
  CHECK(strided(2, 64, 64, 63) == Status::InvalidStrideC);  // one element short of an entry
  CHECK(strided(0, 64, 64, 0) == Status::Success);          // an empty batch: nothing to do
  CHECK(strided(1, 0, 0, 0) == Status::Success);            // one entry needs no stride
  CHECK(gemm::kernel_launches() == before + 1);             // only the batch of one ran
  const unsigned long long after_one = gemm::kernel_launches();
  CHECK(gemm::gemm_strided_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, a.ptr, 7, 64, b.ptr, 8, 64, 0.0f, c.ptr, 8, 64,
                                          2) == Status::InvalidLeadingDimensionA);
  CHECK(gemm::gemm_strided_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, nullptr, 8, 64, b.ptr, 8, 64, 0.0f, c.ptr, 8,
                                          64, 2) == Status::NullPointerA);
  // The column-major forms name the caller's operands.
  CHECK(gemm::blas::gemm_strided_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, a.ptr, 8, -1, b.ptr, 8, 64, 0.0f, c.ptr, 8,
                                                64, 2) == Status::InvalidStrideA);
  CHECK(gemm::blas::gemm_strided_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, a.ptr, 8, 64, b.ptr, 8, -1, 0.0f, c.ptr, 8,
                                                64, 2) == Status::InvalidStrideB);
  CHECK(gemm::blas::gemm_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, nullptr, 8, arr.ptr, 8, 0.0f, carr, 8, 2) ==
        Status::NullPointerA);
  // Pointer arrays: the arrays themselves must be there.
  CHECK(gemm::gemm_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, nullptr, 8, arr.ptr, 8, 0.0f, carr, 8, 2) ==
        Status::NullPointerA);
  CHECK(gemm::gemm_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, arr.ptr, 8, nullptr, 8, 0.0f, carr, 8, 2) ==
        Status::NullPointerB);
  CHECK(gemm::gemm_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, arr.ptr, 8, arr.ptr, 8, 0.0f, nullptr, 8, 2) ==
        Status::NullPointerC);
  CHECK(gemm::gemm_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, arr.ptr, 8, arr.ptr, 8, 0.0f, carr, 8, -2) ==
        Status::InvalidBatchCount);
  CHECK(gemm::gemm_batched<float>(Op::N, Op::N, 8, 8, 8, 1.0f, arr.ptr, 8, arr.ptr, 8, 0.0f, carr, 8, 0) ==
        Status::Success);
  CHECK(gemm::kernel_launches() == after_one);
  if (gemm_test::is_sm90()) {  // the single-warpgroup Hopper kernel reads no per-entry tensor maps
    gemm_test::DeviceBuffer<__nv_bfloat16> h(4096);
    const __nv_bfloat16* ph[1] = {h.ptr};
    __nv_bfloat16* phc[1] = {h.ptr};
    gemm_test::DeviceBuffer<const __nv_bfloat16*> harr(1);
    gemm_test::DeviceBuffer<__nv_bfloat16*> hcarr(1);
    CUDA_REQUIRE(cudaMemcpy(harr.ptr, ph, sizeof(ph), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(hcarr.ptr, phc, sizeof(phc), cudaMemcpyHostToDevice));
    CHECK(gemm::gemm_batched<__nv_bfloat16, gemm::preset::Wgmma>(
              Op::N, Op::N, 8, 8, 8, 1.0f, harr.ptr, 8, harr.ptr, 8, 0.0f,
              hcarr.ptr, 8, 1) == Status::UnsupportedBatch);
    CHECK(gemm::kernel_launches() == after_one);
  }
  std::vector<float> out(4096);
  CUDA_REQUIRE(cudaMemcpy(out.data(), c.ptr, 4096 * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(std::count(out.begin() + 64, out.end(), -7.0f) == 4096 - 64);  // only the batch of one wrote (64 elements)
  CHECK(std::string(gemm::to_string(Status::InvalidStrideC)).find("overlap") != std::string::npos);
}
