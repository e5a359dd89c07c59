// The inline float32 math helpers of the C target, written once as templates over the type.
#include "codegen/c/c_math.h"

#include <array>

#include "support/error.h"

namespace kiln::codegen {

namespace {

// The templates below use $F (the float type), $I (its int32 twin) and $S (the name suffix).
// Scalar and vector code differ only in the primitives: comparisons give 0/1 on scalars and
// 0/-1 lane masks on vectors, so every select goes through kiln_sel_$S, and masks are never
// negated with ~. Constants that a select returns are splat with kiln_fsplat_$S (GCC converts
// a scalar operand of an arithmetic operator to the vector, but not a function argument).

const char kScalarPrimitives[] = R"(static inline int32_t kiln_fbits_f32(float x) {
  int32_t i;
  memcpy(&i, &x, sizeof i);
  return i;
}
static inline float kiln_bitsf_f32(int32_t i) {
  float x;
  memcpy(&x, &i, sizeof x);
  return x;
}
static inline int32_t kiln_ftoi_f32(float x) { return (int32_t)x; }
static inline float kiln_itof_f32(int32_t i) { return (float)i; }
static inline float kiln_sel_f32(int32_t m, float a, float b) { return m ? a : b; }
static inline float kiln_fsplat_f32(float v) { return v; }
)";

const char kVectorPrimitives[] = R"(static inline $I kiln_fbits_$S($F x) { return ($I)x; }
static inline $F kiln_bitsf_$S($I i) { return ($F)i; }
static inline $I kiln_ftoi_$S($F x) { return __builtin_convertvector(x, $I); }
static inline $F kiln_itof_$S($I i) { return __builtin_convertvector(i, $F); }
static inline $F kiln_sel_$S($I m, $F a, $F b) {
  return kiln_bitsf_$S((m & kiln_fbits_$S(a)) | (~m & kiln_fbits_$S(b)));
}
static inline $F kiln_fsplat_$S(float v) { return ($F){$SPLAT}; }
)";

// e^x = 2^n * e^r with n = round(x / ln 2) and |r| <= ln(2) / 2 (ln 2 in two parts, so that
// n * hi is exact); e^r = 1 + r + r^2 q(r). 2^n is built in two halves so that n = 128 (x near
// the overflow threshold) and n < -126 (subnormal results) need no special case.
const char kExp[] = R"(static inline $F kiln_exp_$S($F x) {
  $F c = kiln_sel_$S(x < 89.0f, x, kiln_fsplat_$S(89.0f));
  c = kiln_sel_$S(c > -104.0f, c, kiln_fsplat_$S(-104.0f));
  $F n = (c * 1.44269504f + 12582912.0f) - 12582912.0f;
  $F r = c - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  $F q = (((0.00139012572f * r + 0.0083631305f) * r + 0.0416668542f) * r + 0.166665778f) * r + 0.5f;
  $F p = 1.0f + (r + (r * r) * q);
  $I k = kiln_ftoi_$S(n);
  $I k1 = k >> 1;
  $F y = p * kiln_bitsf_$S((k1 + 127) << 23) * kiln_bitsf_$S((k - k1 + 127) << 23);
  return kiln_sel_$S(x == x, y, x);
}
)";

// erf(x) = x P(x^2) / Q(x^2) on |x| <= 4, where float32's erf reaches 1.
const char kErf[] = R"(static inline $F kiln_erf_$S($F x) {
  $F c = kiln_sel_$S(x < 4.0f, x, kiln_fsplat_$S(4.0f));
  c = kiln_sel_$S(c > -4.0f, c, kiln_fsplat_$S(-4.0f));
  $F u = c * c;
  $F p = ((((1.98679209e-06f * u + 0.000284568581f) * u + 0.00388339767f) * u + 0.0531019121f) * u +
          0.193546101f) * u + 1.12837911f;
  $F q = ((((3.74204174e-05f * u + 0.00118558703f) * u + 0.0152073558f) * u + 0.115350455f) * u +
          0.504858315f) * u + 1.0f;
  $F y = c * p / q;
  y = kiln_sel_$S(y < 1.0f, y, kiln_fsplat_$S(1.0f));
  y = kiln_sel_$S(y > -1.0f, y, kiln_fsplat_$S(-1.0f));
  return kiln_sel_$S(x == x, y, x);
}
)";

// tanh(x) = x P(x^2) / Q(x^2) on |x| <= 9.2, where float32's tanh reaches 1.
const char kTanh[] = R"(static inline $F kiln_tanh_$S($F x) {
  $F c = kiln_sel_$S(x < 9.2f, x, kiln_fsplat_$S(9.2f));
  c = kiln_sel_$S(c > -9.2f, c, kiln_fsplat_$S(-9.2f));
  $F u = c * c;
  $F p = (((1.30025484e-08f * u + 2.03536729e-05f) * u + 0.00348001672f) * u + 0.133678988f) * u +
         1.0f;
  $F q = (((7.63205037e-07f * u + 0.000326020381f) * u + 0.0258176941f) * u + 0.467012107f) * u +
         1.0f;
  $F y = c * p / q;
  y = kiln_sel_$S(y < 1.0f, y, kiln_fsplat_$S(1.0f));
  y = kiln_sel_$S(y > -1.0f, y, kiln_fsplat_$S(-1.0f));
  return kiln_sel_$S(x == x, y, x);
}
)";

// 1 / (1 + e^-x) for x > 0, e^x / (1 + e^x) otherwise: the tail toward 0 keeps its relative
// precision (where 1 / (1 + e^-x) would give 0 from x < -88.7 on); NaN stays NaN.
const char kSigmoid[] = R"(static inline $F kiln_sigmoid_$S($F x) {
  $F e = kiln_exp_$S(kiln_sel_$S(x > 0.0f, -x, x));
  $F s = 1.0f / (1.0f + e);
  return kiln_sel_$S(x > 0.0f, s, e * s);
}
)";

// log(x) = e ln 2 + log1p(f), x = 2^e (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)) (the offset
// of sqrt(1/2)'s bits moves the exponent's boundary there); log1p(f) = f - f^2/2 + f^3 P(f).
// Subnormals are scaled by 2^23 first; x <= 0, inf and NaN are replaced at the end.
const char kLog[] = R"(static inline $F kiln_log_$S($F x) {
  $F a = kiln_sel_$S(x > 0.0f, x, kiln_fsplat_$S(1.0f));
  $I tiny = a < 1.17549435e-38f;
  a = a * kiln_sel_$S(tiny, kiln_fsplat_$S(8388608.0f), kiln_fsplat_$S(1.0f));
  $I bits = kiln_fbits_$S(a) - 0x3f3504f3;
  $F e = kiln_itof_$S(bits >> 23) - kiln_sel_$S(tiny, kiln_fsplat_$S(23.0f), kiln_fsplat_$S(0.0f));
  $F f = kiln_bitsf_$S((bits & 0x007fffff) + 0x3f3504f3) - 1.0f;
  $F p = (((((((0.0703746378f * f - 0.115143396f) * f + 0.11676956f) * f - 0.124201745f) * f +
              0.142493293f) * f - 0.16668056f) * f + 0.200007141f) * f - 0.24999994f) * f +
         0.333333313f;
  $F f2 = f * f;
  $F y = e * -2.12194440e-4f + (f - 0.5f * f2 + f2 * f * p);
  y = y + e * 0.693359375f;
  y = kiln_sel_$S(x > 0.0f, y,
                  kiln_sel_$S(x == 0.0f, kiln_fsplat_$S(-INFINITY), kiln_fsplat_$S(NAN)));
  return kiln_sel_$S(x < INFINITY, y, x);
}
)";

struct Entry {
  std::string_view name;
  const char* text;
  std::string_view needs;  // another helper this one calls, or empty
};

constexpr std::array<Entry, 5> kEntries = {{
    {"exp", kExp, ""},
    {"erf", kErf, ""},
    {"tanh", kTanh, ""},
    {"sigmoid", kSigmoid, "exp"},
    {"log", kLog, ""},
}};

const Entry* Find(std::string_view name) {
  for (const Entry& e : kEntries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string ReplaceAll(std::string text, std::string_view from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string Instantiate(const char* text, const CMathType& type) {
  std::string splat;
  for (int i = 0; i < type.lanes; ++i) splat += i ? ", v" : "v";
  std::string s = ReplaceAll(text, "$SPLAT", splat);
  s = ReplaceAll(std::move(s), "$F", type.float_type);
  s = ReplaceAll(std::move(s), "$I", type.int_type);
  return ReplaceAll(std::move(s), "$S", type.suffix);
}

}  // namespace

bool HasInlineMath(std::string_view name) { return Find(name) != nullptr; }

std::string InlineMathFunction(std::string_view name, const CMathType& type) {
  return "kiln_" + std::string(name) + "_" + type.suffix;
}

std::vector<CHelper> InlineMathHelpers(std::string_view name, const CMathType& type) {
  const Entry* entry = Find(name);
  KILN_CHECK(entry != nullptr, ErrorKind::kUnsupported,
             "C target: no inline math helper for " + std::string(name));
  std::vector<CHelper> helpers;
  helpers.push_back({"kiln_mathprim_" + type.suffix,
                     type.lanes == 1 ? kScalarPrimitives : Instantiate(kVectorPrimitives, type)});
  if (!entry->needs.empty()) {
    helpers.push_back(
        {InlineMathFunction(entry->needs, type), Instantiate(Find(entry->needs)->text, type)});
  }
  helpers.push_back({InlineMathFunction(name, type), Instantiate(entry->text, type)});
  return helpers;
}

}  // namespace kiln::codegen
