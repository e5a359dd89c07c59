// References for the linear-algebra, convolution, pooling and normalization zoo functions.
#include <algorithm>
#include <cmath>

#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {

void RefMatmul(Args& t) {
  const int64_t m = Dim(t[0], 0), k = Dim(t[0], 1), n = Dim(t[1], 1);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t r = 0; r < k; ++r) sum += Get(t[0], {i, r}) * Get(t[1], {r, j});
      Set(t[2], {i, j}, sum);
    }
  }
}

void RefBatchMatmul(Args& t) {
  const int64_t b = Dim(t[0], 0), m = Dim(t[0], 1), k = Dim(t[0], 2), n = Dim(t[1], 2);
  for (int64_t x = 0; x < b; ++x) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t r = 0; r < k; ++r) sum += Get(t[0], {x, i, r}) * Get(t[1], {x, r, j});
        Set(t[2], {x, i, j}, sum);
      }
    }
  }
}

void RefDenseBiasRelu(Args& t) {
  const int64_t m = Dim(t[0], 0), k = Dim(t[0], 1), n = Dim(t[1], 0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t r = 0; r < k; ++r) sum += Get(t[0], {i, r}) * Get(t[1], {j, r});
      Set(t[3], {i, j}, std::max(sum + Get(t[2], {j}), 0.0));
    }
  }
}

void RefConv2dNchw(Args& t) {
  const HostTensor &in = t[0], &w = t[1];
  HostTensor& out = t[2];
  for (int64_t n = 0; n < Dim(out, 0); ++n) {
    for (int64_t f = 0; f < Dim(out, 1); ++f) {
      for (int64_t h = 0; h < Dim(out, 2); ++h) {
        for (int64_t x = 0; x < Dim(out, 3); ++x) {
          double sum = 0;
          for (int64_t c = 0; c < Dim(w, 1); ++c) {
            for (int64_t rh = 0; rh < Dim(w, 2); ++rh) {
              for (int64_t rw = 0; rw < Dim(w, 3); ++rw) {
                sum += Get(in, {n, c, h + rh, x + rw}) * Get(w, {f, c, rh, rw});
              }
            }
          }
          Set(out, {n, f, h, x}, sum);
        }
      }
    }
  }
}

void RefConv2dNhwc(Args& t) {
  const HostTensor &in = t[0], &w = t[1];
  HostTensor& out = t[2];
  for (int64_t n = 0; n < Dim(out, 0); ++n) {
    for (int64_t h = 0; h < Dim(out, 1); ++h) {
      for (int64_t x = 0; x < Dim(out, 2); ++x) {
        for (int64_t f = 0; f < Dim(out, 3); ++f) {
          double sum = 0;
          for (int64_t rh = 0; rh < Dim(w, 0); ++rh) {
            for (int64_t rw = 0; rw < Dim(w, 1); ++rw) {
              for (int64_t c = 0; c < Dim(w, 2); ++c) {
                sum += Get(in, {n, h + rh, x + rw, c}) * Get(w, {rh, rw, c, f});
              }
            }
          }
          Set(out, {n, h, x, f}, sum);
        }
      }
    }
  }
}

void RefConv2dStride2Pad1(Args& t) {
  const HostTensor &in = t[0], &w = t[1];
  HostTensor& out = t[2];
  for (int64_t n = 0; n < Dim(out, 0); ++n) {
    for (int64_t f = 0; f < Dim(out, 1); ++f) {
      for (int64_t h = 0; h < Dim(out, 2); ++h) {
        for (int64_t x = 0; x < Dim(out, 3); ++x) {
          double sum = 0;
          for (int64_t c = 0; c < Dim(w, 1); ++c) {
            for (int64_t rh = 0; rh < Dim(w, 2); ++rh) {
              for (int64_t rw = 0; rw < Dim(w, 3); ++rw) {
                int64_t ih = h * 2 + rh - 1, iw = x * 2 + rw - 1;
                if (ih < 0 || ih >= Dim(in, 2) || iw < 0 || iw >= Dim(in, 3)) continue;
                sum += Get(in, {n, c, ih, iw}) * Get(w, {f, c, rh, rw});
              }
            }
          }
          Set(out, {n, f, h, x}, sum);
        }
      }
    }
  }
}

void RefDepthwiseConv(Args& t) {
  const HostTensor &in = t[0], &w = t[1];
  HostTensor& out = t[2];
  for (int64_t n = 0; n < Dim(out, 0); ++n) {
    for (int64_t c = 0; c < Dim(out, 1); ++c) {
      for (int64_t h = 0; h < Dim(out, 2); ++h) {
        for (int64_t x = 0; x < Dim(out, 3); ++x) {
          double sum = 0;
          for (int64_t rh = 0; rh < Dim(w, 2); ++rh) {
            for (int64_t rw = 0; rw < Dim(w, 3); ++rw) {
              sum += Get(in, {n, c, h + rh, x + rw}) * Get(w, {c, 0, rh, rw});
            }
          }
          Set(out, {n, c, h, x}, sum);
        }
      }
    }
  }
}

void RefMaxPool2x2(Args& t) {
  const HostTensor& in = t[0];
  HostTensor& out = t[1];
  for (int64_t n = 0; n < Dim(out, 0); ++n) {
    for (int64_t c = 0; c < Dim(out, 1); ++c) {
      for (int64_t h = 0; h < Dim(out, 2); ++h) {
        for (int64_t x = 0; x < Dim(out, 3); ++x) {
          double best = Get(in, {n, c, h * 2, x * 2});
          for (int64_t rh = 0; rh < 2; ++rh) {
            for (int64_t rw = 0; rw < 2; ++rw) {
              best = std::max(best, Get(in, {n, c, h * 2 + rh, x * 2 + rw}));
            }
          }
          Set(out, {n, c, h, x}, best);
        }
      }
    }
  }
}

void RefAvgPool3x3Stride2Pad1(Args& t) {
  const HostTensor& in = t[0];
  HostTensor& out = t[1];
  for (int64_t n = 0; n < Dim(out, 0); ++n) {
    for (int64_t c = 0; c < Dim(out, 1); ++c) {
      for (int64_t h = 0; h < Dim(out, 2); ++h) {
        for (int64_t x = 0; x < Dim(out, 3); ++x) {
          double sum = 0;  // padding counts as zeros in the average
          for (int64_t rh = 0; rh < 3; ++rh) {
            for (int64_t rw = 0; rw < 3; ++rw) {
              int64_t ih = h * 2 + rh - 1, iw = x * 2 + rw - 1;
              if (ih < 0 || ih >= Dim(in, 2) || iw < 0 || iw >= Dim(in, 3)) continue;
              sum += Get(in, {n, c, ih, iw});
            }
          }
          Set(out, {n, c, h, x}, sum / 9.0);
        }
      }
    }
  }
}

void RefGlobalAvgPool(Args& t) {
  const HostTensor& in = t[0];
  HostTensor& out = t[1];
  for (int64_t n = 0; n < Dim(in, 0); ++n) {
    for (int64_t c = 0; c < Dim(in, 1); ++c) {
      double sum = 0;
      for (int64_t h = 0; h < Dim(in, 2); ++h) {
        for (int64_t x = 0; x < Dim(in, 3); ++x) sum += Get(in, {n, c, h, x});
      }
      Set(out, {n, c, 0, 0}, sum / static_cast<double>(Dim(in, 2) * Dim(in, 3)));
    }
  }
}

void RefSoftmax(Args& t) {
  const int64_t rows = Dim(t[0], 0), cols = Dim(t[0], 1);
  for (int64_t i = 0; i < rows; ++i) {
    double top = Get(t[0], {i, 0}), sum = 0;
    for (int64_t j = 1; j < cols; ++j) top = std::max(top, Get(t[0], {i, j}));
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(Get(t[0], {i, j}) - top);
    for (int64_t j = 0; j < cols; ++j) Set(t[1], {i, j}, std::exp(Get(t[0], {i, j}) - top) / sum);
  }
}

void RefLogSoftmax(Args& t) {
  const int64_t rows = Dim(t[0], 0), cols = Dim(t[0], 1);
  for (int64_t i = 0; i < rows; ++i) {
    double top = Get(t[0], {i, 0}), sum = 0;
    for (int64_t j = 1; j < cols; ++j) top = std::max(top, Get(t[0], {i, j}));
    for (int64_t j = 0; j < cols; ++j) sum += std::exp(Get(t[0], {i, j}) - top);
    for (int64_t j = 0; j < cols; ++j) Set(t[1], {i, j}, Get(t[0], {i, j}) - top - std::log(sum));
  }
}

void RefLayerNorm(Args& t) {
  const int64_t rows = Dim(t[0], 0), cols = Dim(t[0], 1);
  for (int64_t i = 0; i < rows; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mean += Get(t[0], {i, j});
    mean /= static_cast<double>(cols);
    for (int64_t j = 0; j < cols; ++j) var += std::pow(Get(t[0], {i, j}) - mean, 2);
    var /= static_cast<double>(cols);
    for (int64_t j = 0; j < cols; ++j) {
      double norm = (Get(t[0], {i, j}) - mean) / std::sqrt(var + kNormEpsilon);
      Set(t[3], {i, j}, norm * Get(t[1], {j}) + Get(t[2], {j}));
    }
  }
}

void RefRmsNorm(Args& t) {
  const int64_t rows = Dim(t[0], 0), cols = Dim(t[0], 1);
  for (int64_t i = 0; i < rows; ++i) {
    double squares = 0;
    for (int64_t j = 0; j < cols; ++j) squares += std::pow(Get(t[0], {i, j}), 2);
    double scale = 1.0 / std::sqrt(squares / static_cast<double>(cols) + kNormEpsilon);
    for (int64_t j = 0; j < cols; ++j)
      Set(t[2], {i, j}, Get(t[0], {i, j}) * scale * Get(t[1], {j}));
  }
}

}  // namespace kiln::ir::zoo
