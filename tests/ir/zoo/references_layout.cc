// References for the layout zoo functions: data movement only, so results are exact.
#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {

void RefTranspose(Args& t) {  // out[i, j, k] = in[j, k, i]
  for (int64_t j = 0; j < Dim(t[0], 0); ++j) {
    for (int64_t k = 0; k < Dim(t[0], 1); ++k) {
      for (int64_t i = 0; i < Dim(t[0], 2); ++i) Set(t[1], {i, j, k}, Get(t[0], {j, k, i}));
    }
  }
}

// Flatten and reshape keep the row-major order of the elements.
void RefFlatten(Args& t) {
  for (int64_t i = 0; i < t[0].numel(); ++i) t[1].SetDouble(i, t[0].GetDouble(i));
}
void RefReshape(Args& t) { RefFlatten(t); }

void RefConcat(Args& t) {  // along axis 1
  const int64_t rows = Dim(t[0], 0), a = Dim(t[0], 1), b = Dim(t[1], 1);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < a; ++j) Set(t[2], {i, j}, Get(t[0], {i, j}));
    for (int64_t j = 0; j < b; ++j) Set(t[2], {i, a + j}, Get(t[1], {i, j}));
  }
}

void RefStridedSlice(Args& t) {  // in[2:14:2, 1:20:4]
  for (int64_t i = 0; i < Dim(t[1], 0); ++i) {
    for (int64_t j = 0; j < Dim(t[1], 1); ++j) Set(t[1], {i, j}, Get(t[0], {2 + 2 * i, 1 + 4 * j}));
  }
}

void RefPad(Args& t) {  // 2 zeros on each side of the last two dimensions
  const HostTensor& in = t[0];
  HostTensor& out = t[1];
  for (int64_t i = 0; i < out.numel(); ++i) out.SetDouble(i, 0.0);
  for (int64_t n = 0; n < Dim(in, 0); ++n) {
    for (int64_t c = 0; c < Dim(in, 1); ++c) {
      for (int64_t h = 0; h < Dim(in, 2); ++h) {
        for (int64_t w = 0; w < Dim(in, 3); ++w)
          Set(out, {n, c, h + 2, w + 2}, Get(in, {n, c, h, w}));
      }
    }
  }
}

}  // namespace kiln::ir::zoo
