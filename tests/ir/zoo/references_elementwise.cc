// References for the element-wise zoo functions.
#include <cmath>

#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {
namespace {

template <typename F>
void Unary(Args& t, F f) {
  for (int64_t i = 0; i < t[0].numel(); ++i) t[1].SetDouble(i, f(t[0].GetDouble(i)));
}

}  // namespace

void RefAddBroadcast(Args& t) {
  for (int64_t i = 0; i < Dim(t[0], 0); ++i) {
    for (int64_t j = 0; j < Dim(t[0], 1); ++j) {
      for (int64_t k = 0; k < Dim(t[0], 2); ++k) {
        Set(t[2], {i, j, k}, Get(t[0], {i, j, k}) + Get(t[1], {k}));
      }
    }
  }
}

void RefBroadcastAdd2d(Args& t) {
  for (int64_t i = 0; i < Dim(t[0], 0); ++i) {
    for (int64_t j = 0; j < Dim(t[0], 1); ++j) {
      Set(t[2], {i, j}, Get(t[0], {i, j}) + Get(t[1], {j}));
    }
  }
}

void RefScalarMul(Args& t) {
  Unary(t, [](double x) { return x * kScaleFactor; });
}
void RefRelu(Args& t) {
  Unary(t, [](double x) { return x > 0 ? x : 0.0; });
}
void RefExp(Args& t) {
  Unary(t, [](double x) { return std::exp(x); });
}
void RefSigmoid(Args& t) {
  Unary(t, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}
void RefGeluErf(Args& t) {
  Unary(t, [](double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); });
}
void RefGeluTanh(Args& t) {
  const double c = std::sqrt(2.0 / M_PI);
  Unary(t, [c](double x) { return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x))); });
}
void RefCast(Args& t) {
  Unary(t, [](double x) { return x; });
}
void RefSquarePlusOne(Args& t) {
  Unary(t, [](double x) { return x * x + 1.0; });
}

void RefWhere(Args& t) {
  for (int64_t i = 0; i < t[0].numel(); ++i) {
    t[3].SetDouble(i, t[0].GetInt(i) != 0 ? t[1].GetDouble(i) : t[2].GetDouble(i));
  }
}

void RefAdd(Args& t) {
  for (int64_t i = 0; i < t[0].numel(); ++i) {
    t[2].SetDouble(i, t[0].GetDouble(i) + t[1].GetDouble(i));
  }
}

}  // namespace kiln::ir::zoo
