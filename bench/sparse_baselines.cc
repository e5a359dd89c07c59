// SpMM and SDDMM through SuiteSparse:GraphBLAS and Eigen, timed with runtime::TimeFunction. Each
// library's half compiles only where CMake found it (KILN_HAVE_GRAPHBLAS, KILN_HAVE_EIGEN).
#include "bench/sparse_baselines.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include "runtime/timing.h"
#include "support/error.h"

#if KILN_HAVE_GRAPHBLAS
extern "C" {
#include <GraphBLAS.h>
}
#endif
#if KILN_HAVE_EIGEN
#include <Eigen/Core>
#include <Eigen/SparseCore>
#endif

namespace kiln::bench {
namespace {

using ir::sparse::CsrMatrix;
using Clock = std::chrono::steady_clock;

[[maybe_unused]] double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void CheckOperands(
    const char* what, const CsrMatrix& a, int64_t feat,
    std::initializer_list<std::pair<const char*, std::pair<size_t, int64_t>>> dense) {
  std::string problem = a.Check();
  KILN_CHECK(problem.empty(), ErrorKind::kType,
             std::string(what) + ": the sparse matrix A is not valid CSR: " + problem);
  KILN_CHECK(feat >= 1, ErrorKind::kType,
             std::string(what) + ": feat " + std::to_string(feat) + ": expected at least 1");
  for (const auto& [name, sizes] : dense) {
    KILN_CHECK(static_cast<int64_t>(sizes.first) == sizes.second * feat, ErrorKind::kType,
               std::string(what) + ": " + name + " has " + std::to_string(sizes.first) +
                   " elements, expected " + std::to_string(sizes.second) + " x feat " +
                   std::to_string(feat) + " = " + std::to_string(sizes.second * feat));
  }
}

[[maybe_unused]] runtime::TimingConfig Config(const SparseTimingOptions& options) {
  KILN_CHECK(options.threads >= 1, ErrorKind::kType,
             "sparse baseline: threads " + std::to_string(options.threads) + ": expected >= 1");
  runtime::TimingConfig config;
  config.number = 1;
  config.warmup = options.warmup;
  config.repeat = options.repeat;
  config.min_repeat_ms = options.min_repeat_ms;
  config.cutoff_seconds = 0;  // never cut short: a baseline is always measured in full
  return config;
}

[[maybe_unused]] void Record(const runtime::TimingResult& timing, SparseBaselineResult* result) {
  result->median_seconds = timing.median_seconds;
  result->seconds_per_run = timing.seconds_per_run;
  result->contention = timing.contention;
}

#if KILN_HAVE_GRAPHBLAS

void Grb(GrB_Info info, const char* call) {
  KILN_CHECK(info == GrB_SUCCESS, ErrorKind::kRuntime,
             std::string("GraphBLAS: ") + call + " returned " + std::to_string(info));
}
#define KILN_GRB(call) Grb((call), #call)

void InitGraphBlas() {
  static std::once_flag once;
  std::call_once(once, [] {
    GrB_Info info = GrB_init(GrB_NONBLOCKING);
    // GrB_INVALID_VALUE: the process had initialised GraphBLAS already.
    KILN_CHECK(info == GrB_SUCCESS || info == GrB_INVALID_VALUE, ErrorKind::kRuntime,
               "GraphBLAS: GrB_init returned " + std::to_string(info));
  });
}

// Owners that free GraphBLAS objects.
struct Matrix {
  GrB_Matrix m = nullptr;
  ~Matrix() {
    if (m) GrB_Matrix_free(&m);
  }
};
struct Descriptor {
  GrB_Descriptor d = nullptr;
  ~Descriptor() {
    if (d) GrB_Descriptor_free(&d);
  }
};

// malloc'd copies: a packed array becomes GraphBLAS's (freed by it with free()).
template <typename T, typename S>
T* MallocCopy(const S* data, size_t count, size_t* bytes) {
  *bytes = std::max<size_t>(count, 1) * sizeof(T);
  T* out = static_cast<T*>(std::malloc(*bytes));
  KILN_CHECK(out, ErrorKind::kRuntime, "GraphBLAS: out of memory packing an operand");
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<T>(data[i]);
  return out;
}

void PackCsr(const CsrMatrix& a, Matrix* out) {
  KILN_GRB(GrB_Matrix_new(&out->m, GrB_FP32, a.rows, a.cols));
  size_t ap_bytes, aj_bytes, ax_bytes;
  GrB_Index* ap = MallocCopy<GrB_Index>(a.indptr.data(), a.indptr.size(), &ap_bytes);
  GrB_Index* aj = MallocCopy<GrB_Index>(a.indices.data(), a.indices.size(), &aj_bytes);
  float* ax = MallocCopy<float>(a.values.data(), a.values.size(), &ax_bytes);
  void* axv = ax;
  GrB_Info info = GxB_Matrix_pack_CSR(out->m, &ap, &aj, &axv, ap_bytes, aj_bytes, ax_bytes,
                                      /*iso=*/false, /*jumbled=*/false, nullptr);
  if (info != GrB_SUCCESS) {
    std::free(ap);
    std::free(aj);
    std::free(axv);
  }
  Grb(info, "GxB_Matrix_pack_CSR");
}

void PackFullRowMajor(const std::vector<float>& data, int64_t rows, int64_t cols, Matrix* out) {
  KILN_GRB(GrB_Matrix_new(&out->m, GrB_FP32, rows, cols));
  size_t bytes;
  void* x = MallocCopy<float>(data.data(), data.size(), &bytes);
  GrB_Info info = GxB_Matrix_pack_FullR(out->m, &x, bytes, /*iso=*/false, nullptr);
  if (info != GrB_SUCCESS) std::free(x);
  Grb(info, "GxB_Matrix_pack_FullR");
}

void SetThreads(int threads, Descriptor* desc) {
  KILN_GRB(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads));
  KILN_GRB(GrB_Descriptor_new(&desc->d));
  KILN_GRB(GxB_Desc_set(desc->d, GxB_DESCRIPTOR_NTHREADS, threads));
}

struct Tuples {
  std::vector<GrB_Index> rows, cols;
  std::vector<float> values;
};

Tuples Extract(GrB_Matrix m) {
  GrB_Index count = 0;
  KILN_GRB(GrB_Matrix_nvals(&count, m));
  Tuples t;
  t.rows.resize(std::max<GrB_Index>(count, 1));
  t.cols.resize(std::max<GrB_Index>(count, 1));
  t.values.resize(std::max<GrB_Index>(count, 1));
  KILN_GRB(GrB_Matrix_extractTuples_FP32(t.rows.data(), t.cols.data(), t.values.data(), &count, m));
  t.rows.resize(count);
  t.cols.resize(count);
  t.values.resize(count);
  return t;
}

#endif  // KILN_HAVE_GRAPHBLAS

[[noreturn, maybe_unused]] void Missing(const char* library, const char* package) {
  throw Error(ErrorKind::kUnsupported, std::string(library) +
                                           " was not found when Kiln was configured; install "
                                           "Debian's " +
                                           package + " (deploy/install-deps.sh) and reconfigure");
}

}  // namespace

bool GraphBlasAvailable() { return KILN_HAVE_GRAPHBLAS; }
bool EigenAvailable() { return KILN_HAVE_EIGEN; }

std::string GraphBlasVersion() {
#if KILN_HAVE_GRAPHBLAS
  return "SuiteSparse:GraphBLAS " + std::to_string(GxB_IMPLEMENTATION_MAJOR) + "." +
         std::to_string(GxB_IMPLEMENTATION_MINOR) + "." + std::to_string(GxB_IMPLEMENTATION_SUB);
#else
  return "not built";
#endif
}

std::string EigenVersion() {
#if KILN_HAVE_EIGEN
  return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
         std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
#else
  return "not built";
#endif
}

SparseBaselineResult GraphBlasSpmm(const CsrMatrix& a, const std::vector<float>& b, int64_t feat,
                                   const SparseTimingOptions& options) {
  CheckOperands("GraphBlasSpmm", a, feat, {{"B", {b.size(), a.cols}}});
#if KILN_HAVE_GRAPHBLAS
  runtime::TimingConfig config = Config(options);
  InitGraphBlas();
  SparseBaselineResult result;
  Clock::time_point start = Clock::now();
  Descriptor desc;
  SetThreads(options.threads, &desc);
  Matrix ga, gb, gc;
  PackCsr(a, &ga);
  PackFullRowMajor(b, a.cols, feat, &gb);
  KILN_GRB(GrB_Matrix_new(&gc.m, GrB_FP32, a.rows, feat));
  result.setup_seconds = SecondsSince(start);
  Record(runtime::TimeFunction(
             [&] {
               // C = 0, then C += A * B: with C full GraphBLAS takes its in-place kernel for a
               // full C (saxpy5), some 4 times faster than C = A * B, which builds C sparse.
               KILN_GRB(GrB_Matrix_assign_FP32(gc.m, nullptr, nullptr, 0.0f, GrB_ALL, a.rows,
                                               GrB_ALL, feat, desc.d));
               KILN_GRB(GrB_mxm(gc.m, nullptr, GrB_PLUS_FP32, GrB_PLUS_TIMES_SEMIRING_FP32, ga.m,
                                gb.m, desc.d));
               KILN_GRB(GrB_Matrix_wait(gc.m, GrB_MATERIALIZE));
             },
             config),
         &result);
  result.output.assign(static_cast<size_t>(a.rows * feat), 0.0f);
  Tuples t = Extract(gc.m);
  for (size_t k = 0; k < t.values.size(); ++k) {
    result.output[t.rows[k] * feat + t.cols[k]] = t.values[k];
  }
  return result;
#else
  (void)options;
  Missing("SuiteSparse:GraphBLAS", "libgraphblas-dev");
#endif
}

SparseBaselineResult GraphBlasSddmm(const CsrMatrix& a, const std::vector<float>& x,
                                    const std::vector<float>& y, int64_t feat,
                                    const SparseTimingOptions& options) {
  CheckOperands("GraphBlasSddmm", a, feat, {{"X", {x.size(), a.rows}}, {"Y", {y.size(), a.cols}}});
#if KILN_HAVE_GRAPHBLAS
  runtime::TimingConfig config = Config(options);
  InitGraphBlas();
  SparseBaselineResult result;
  Clock::time_point start = Clock::now();
  Descriptor desc, masked;
  SetThreads(options.threads, &desc);
  KILN_GRB(GrB_Descriptor_new(&masked.d));
  KILN_GRB(GxB_Desc_set(masked.d, GxB_DESCRIPTOR_NTHREADS, options.threads));
  KILN_GRB(GrB_Descriptor_set(masked.d, GrB_MASK, GrB_STRUCTURE));
  KILN_GRB(GrB_Descriptor_set(masked.d, GrB_INP1, GrB_TRAN));
  Matrix ga, gx, gy, gc;
  PackCsr(a, &ga);
  PackFullRowMajor(x, a.rows, feat, &gx);
  PackFullRowMajor(y, a.cols, feat, &gy);
  KILN_GRB(GrB_Matrix_new(&gc.m, GrB_FP32, a.rows, a.cols));
  result.setup_seconds = SecondsSince(start);
  Record(runtime::TimeFunction(
             [&] {
               // C<struct(A)> = X * Y', then C = C .* A: the values scale the dot products.
               KILN_GRB(GrB_mxm(gc.m, ga.m, nullptr, GrB_PLUS_TIMES_SEMIRING_FP32, gx.m, gy.m,
                                masked.d));
               KILN_GRB(GrB_Matrix_eWiseMult_BinaryOp(gc.m, nullptr, nullptr, GrB_TIMES_FP32, gc.m,
                                                      ga.m, desc.d));
               KILN_GRB(GrB_Matrix_wait(gc.m, GrB_MATERIALIZE));
             },
             config),
         &result);
  // Back into A's order: each tuple finds its nonzero in A's row.
  result.output.assign(a.values.size(), 0.0f);
  Tuples t = Extract(gc.m);
  for (size_t k = 0; k < t.values.size(); ++k) {
    const int32_t* begin = a.indices.data() + a.indptr[t.rows[k]];
    const int32_t* end = a.indices.data() + a.indptr[t.rows[k] + 1];
    const int32_t* p = std::lower_bound(begin, end, static_cast<int32_t>(t.cols[k]));
    KILN_CHECK(p != end && *p == static_cast<int32_t>(t.cols[k]), ErrorKind::kInternal,
               "GraphBlasSddmm: GraphBLAS produced (" + std::to_string(t.rows[k]) + ", " +
                   std::to_string(t.cols[k]) + "), outside A's pattern");
    result.output[p - a.indices.data()] = t.values[k];
  }
  return result;
#else
  (void)options;
  Missing("SuiteSparse:GraphBLAS", "libgraphblas-dev");
#endif
}

#if KILN_HAVE_EIGEN
namespace {
using EigenCsr = Eigen::Map<const Eigen::SparseMatrix<float, Eigen::RowMajor, int32_t>>;
using EigenDense = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
}  // namespace
#endif

SparseBaselineResult EigenSpmm(const CsrMatrix& a, const std::vector<float>& b, int64_t feat,
                               const SparseTimingOptions& options) {
  CheckOperands("EigenSpmm", a, feat, {{"B", {b.size(), a.cols}}});
#if KILN_HAVE_EIGEN
  runtime::TimingConfig config = Config(options);
  SparseBaselineResult result;
  Clock::time_point start = Clock::now();
  Eigen::setNbThreads(options.threads);
  EigenCsr ea(a.rows, a.cols, a.nnz(), a.indptr.data(), a.indices.data(), a.values.data());
  Eigen::Map<const EigenDense> eb(b.data(), a.cols, feat);
  result.output.assign(static_cast<size_t>(a.rows * feat), 0.0f);
  Eigen::Map<EigenDense> ec(result.output.data(), a.rows, feat);
  result.setup_seconds = SecondsSince(start);
  Record(runtime::TimeFunction([&] { ec.noalias() = ea * eb; }, config), &result);
  return result;
#else
  (void)options;
  Missing("Eigen", "libeigen3-dev");
#endif
}

SparseBaselineResult EigenSddmm(const CsrMatrix& a, const std::vector<float>& x,
                                const std::vector<float>& y, int64_t feat,
                                const SparseTimingOptions& options) {
  CheckOperands("EigenSddmm", a, feat, {{"X", {x.size(), a.rows}}, {"Y", {y.size(), a.cols}}});
#if KILN_HAVE_EIGEN
  runtime::TimingConfig config = Config(options);
  SparseBaselineResult result;
  Clock::time_point start = Clock::now();
  Eigen::Map<const EigenDense> ex(x.data(), a.rows, feat);
  Eigen::Map<const EigenDense> ey(y.data(), a.cols, feat);
  result.output.assign(a.values.size(), 0.0f);
  float* out = result.output.data();
  const int64_t rows = a.rows;
  const int threads = options.threads;
  result.setup_seconds = SecondsSince(start);
  Record(runtime::TimeFunction(
             [&] {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
               for (int64_t r = 0; r < rows; ++r) {
                 for (int32_t p = a.indptr[r]; p < a.indptr[r + 1]; ++p) {
                   out[p] = a.values[p] * ex.row(r).dot(ey.row(a.indices[p]));
                 }
               }
             },
             config),
         &result);
  return result;
#else
  (void)options;
  Missing("Eigen", "libeigen3-dev");
#endif
}

}  // namespace kiln::bench
