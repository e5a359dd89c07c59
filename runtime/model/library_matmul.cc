// Geometry from shapes, then oneDNN's or OpenBLAS's SGEMM per GEMM.
#include "runtime/model/library_matmul.h"

#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <atomic>
#include <cstring>

#include "support/error.h"

namespace kiln::runtime::model {
namespace {

// Below this many floating-point operations a matmul call runs on one thread.
constexpr double kSerialFlop = 4e6;

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

void CheckMatmul(const LibraryAttrs& attrs, const std::vector<ir::DataType>& dtypes,
                 const std::string& where) {
  for (const auto& [key, value] : attrs) {
    KILN_CHECK(key == "trans_a" || key == "trans_b", ErrorKind::kParse,
               where + ": unknown attribute '" + key + "' (trans_a, trans_b expected)");
    KILN_CHECK(value == 0 || value == 1, ErrorKind::kParse,
               where + ": attribute " + key + " = " + std::to_string(value) + ", 0 or 1 expected");
  }
  KILN_CHECK(
      dtypes.size() == 3, ErrorKind::kParse,
      where + ": a matmul takes 3 tensors (A, B, C), " + std::to_string(dtypes.size()) + " given");
  for (size_t i = 0; i < dtypes.size(); ++i) {
    KILN_CHECK(dtypes[i] == ir::DataType::Float(32), ErrorKind::kParse,
               where + ": argument " + std::to_string(i) + " is " + dtypes[i].ToString() +
                   ", an SGEMM takes float32");
  }
}

int64_t Attr(const LibraryAttrs& attrs, const char* key) {
  auto it = attrs.find(key);
  return it == attrs.end() ? 0 : it->second;
}

// Gives OpenBLAS its thread count only when it changes: the call takes a lock.
void SetOpenBlasThreads(int threads) {
  static std::atomic<int> current{0};
  if (current.exchange(threads) != threads) openblas_set_num_threads(threads);
}

void RunGemms(const MatmulGeometry& g, const std::vector<LibraryTensor>& args, int threads,
              bool dnnl) {
  const auto* a = static_cast<const float*>(args[0].data);
  const auto* b = static_cast<const float*>(args[1].data);
  auto* c = static_cast<float*>(args[2].data);
  int64_t gemms = static_cast<int64_t>(g.a_offsets.size());
  if (g.m == 0 || g.n == 0 || gemms == 0) return;
  if (g.k == 0) {
    std::memset(c, 0, sizeof(float) * g.m * g.n * gemms);
    return;
  }
  int64_t lda = g.trans_a ? g.m : g.k;
  int64_t ldb = g.trans_b ? g.k : g.n;
  // A small product runs on the calling thread alone: waking a pool costs more than it saves.
  double flop = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) *
                static_cast<double>(g.k) * static_cast<double>(gemms);
  if (flop < kSerialFlop) threads = 1;
  if (!dnnl) {
    SetOpenBlasThreads(threads);
    for (int64_t i = 0; i < gemms; ++i) {
      cblas_sgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans,
                  g.trans_b ? CblasTrans : CblasNoTrans, static_cast<blasint>(g.m),
                  static_cast<blasint>(g.n), static_cast<blasint>(g.k), 1.0f, a + g.a_offsets[i],
                  static_cast<blasint>(lda), b + g.b_offsets[i], static_cast<blasint>(ldb), 0.0f,
                  c + i * g.m * g.n, static_cast<blasint>(g.n));
    }
    return;
  }
  // oneDNN runs on the OpenMP pool the kernels share, sized as the executor's (or 1 above),
  // restored for the kernels after it.
  int before = omp_get_max_threads();
  if (before != threads) omp_set_num_threads(threads);
  char ta = g.trans_a ? 'T' : 'N';
  char tb = g.trans_b ? 'T' : 'N';
  std::atomic<int> failed{0};
  auto one = [&](int64_t i) {
    dnnl_status_t status = dnnl_sgemm(ta, tb, g.m, g.n, g.k, 1.0f, a + g.a_offsets[i], lda,
                                      b + g.b_offsets[i], ldb, 0.0f, c + i * g.m * g.n, g.n);
    if (status != dnnl_success) failed = static_cast<int>(status);
  };
  // Many small GEMMs (attention's heads) go one per thread; a few large ones use every thread.
  if (threads > 1 && gemms >= threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < gemms; ++i) one(i);
  } else {
    for (int64_t i = 0; i < gemms; ++i) one(i);
  }
  if (before != threads) omp_set_num_threads(before);
  KILN_CHECK(failed == 0, ErrorKind::kRuntime,
             "dnnl_sgemm(" + std::to_string(g.m) + ", " + std::to_string(g.n) + ", " +
                 std::to_string(g.k) + ") failed with status " + std::to_string(failed.load()));
}

LibraryFunction MakeMatmul(const char* name, bool dnnl) {
  LibraryFunction f;
  f.name = name;
  f.summary = std::string("C = A x B in float32 (batched, broadcast, transposed operands) by ") +
              (dnnl ? "oneDNN's dnnl_sgemm" : "OpenBLAS's cblas_sgemm");
  f.check = CheckMatmul;
  f.check_shapes = [](const LibraryAttrs& attrs, const std::vector<std::vector<int64_t>>& shapes,
                      const std::string& where) { MatmulGeometryOf(attrs, shapes, where); };
  f.run = [dnnl](const LibraryAttrs& attrs, const std::vector<LibraryTensor>& args, int threads) {
    std::vector<std::vector<int64_t>> shapes;
    for (const LibraryTensor& t : args) shapes.push_back(t.shape);
    RunGemms(MatmulGeometryOf(attrs, shapes, dnnl ? kDnnlSgemm : kCblasSgemm), args,
             std::max(1, threads), dnnl);
  };
  return f;
}

}  // namespace

MatmulGeometry MatmulGeometryOf(const LibraryAttrs& attrs,
                                const std::vector<std::vector<int64_t>>& shapes,
                                const std::string& where) {
  KILN_CHECK(shapes.size() == 3, ErrorKind::kRuntime,
             where + ": a matmul takes 3 tensors, " + std::to_string(shapes.size()) + " given");
  const std::vector<int64_t>& a = shapes[0];
  const std::vector<int64_t>& b = shapes[1];
  const std::vector<int64_t>& c = shapes[2];
  KILN_CHECK(a.size() >= 2 && b.size() >= 2 && c.size() >= 2 && a.size() <= c.size() &&
                 b.size() <= c.size(),
             ErrorKind::kRuntime,
             where + ": shapes A " + ShapeText(a) + ", B " + ShapeText(b) + ", C " + ShapeText(c) +
                 ": ranks of at least 2 expected, C's at least A's and B's");
  MatmulGeometry g;
  g.trans_a = Attr(attrs, "trans_a") != 0;
  g.trans_b = Attr(attrs, "trans_b") != 0;
  size_t ra = a.size(), rb = b.size(), rc = c.size();
  g.m = g.trans_a ? a[ra - 1] : a[ra - 2];
  g.k = g.trans_a ? a[ra - 2] : a[ra - 1];
  int64_t kb = g.trans_b ? b[rb - 1] : b[rb - 2];
  g.n = g.trans_b ? b[rb - 2] : b[rb - 1];
  KILN_CHECK(g.k == kb && c[rc - 2] == g.m && c[rc - 1] == g.n, ErrorKind::kRuntime,
             where + ": shapes A " + ShapeText(a) + ", B " + ShapeText(b) + ", C " + ShapeText(c) +
                 " do not make a matmul (M " + std::to_string(g.m) + ", K " + std::to_string(g.k) +
                 " and " + std::to_string(kb) + ", N " + std::to_string(g.n) + ")");
  size_t batch_dims = rc - 2;
  int64_t gemms = 1;
  for (size_t d = 0; d < batch_dims; ++d) {
    KILN_CHECK(!__builtin_mul_overflow(gemms, c[d], &gemms), ErrorKind::kRuntime,
               where + ": batch too large");
  }
  // Per operand: the element stride of each of C's batch dims (0 where it is broadcast).
  auto strides = [&](const std::vector<int64_t>& s, const char* operand) {
    std::vector<int64_t> out(batch_dims, 0);
    int64_t stride = s[s.size() - 1] * s[s.size() - 2];
    size_t own = s.size() - 2;
    for (size_t i = 0; i < own; ++i) {
      size_t d = own - 1 - i;          // the operand's batch dim
      size_t cd = batch_dims - 1 - i;  // C's, right-aligned
      KILN_CHECK(s[d] == c[cd] || s[d] == 1, ErrorKind::kRuntime,
                 where + ": " + operand + "'s batch dim " + std::to_string(d) + " is " +
                     std::to_string(s[d]) + ", C's is " + std::to_string(c[cd]) +
                     " (equal or 1 expected)");
      out[cd] = s[d] == 1 ? 0 : stride;
      stride *= s[d];
    }
    return out;
  };
  std::vector<int64_t> sa = strides(a, "A"), sb = strides(b, "B");
  // Unbatched B and a compact, unbroadcast A: the batch is more rows of one GEMM.
  bool fold = !g.trans_a && batch_dims > 0;
  int64_t expect = g.m * g.k;
  for (size_t i = 0; i < batch_dims && fold; ++i) {
    size_t d = batch_dims - 1 - i;
    fold = sb[d] == 0 && (c[d] == 1 || sa[d] == expect);
    expect *= c[d];
  }
  if (fold) {
    g.m *= gemms;
    g.a_offsets = {0};
    g.b_offsets = {0};
    return g;
  }
  g.a_offsets.resize(gemms);
  g.b_offsets.resize(gemms);
  for (int64_t i = 0; i < gemms; ++i) {
    int64_t rest = i, oa = 0, ob = 0;
    for (size_t j = 0; j < batch_dims; ++j) {
      size_t d = batch_dims - 1 - j;
      int64_t idx = rest % c[d];
      rest /= c[d];
      oa += idx * sa[d];
      ob += idx * sb[d];
    }
    g.a_offsets[i] = oa;
    g.b_offsets[i] = ob;
  }
  return g;
}

void RegisterMatmulLibraryFunctions() {
  RegisterLibraryFunction(MakeMatmul(kDnnlSgemm, true));
  RegisterLibraryFunction(MakeMatmul(kCblasSgemm, false));
}

}  // namespace kiln::runtime::model
