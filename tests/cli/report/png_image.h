// A small PNG reader for tests that look at screenshots: 8-bit grey, RGB and RGBA (with or
// without alpha), not interlaced, which is what headless Chromium writes. Pixels come back as
// RGBA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::cli::testing {

struct PngImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4, row-major

  const uint8_t* Pixel(int x, int y) const {
    return &rgba[(static_cast<size_t>(y) * width + x) * 4];
  }
};

// kiln::Error(kParse) naming `path` and what is wrong for a file it cannot read.
PngImage ReadPng(const std::string& path);

}  // namespace kiln::cli::testing
