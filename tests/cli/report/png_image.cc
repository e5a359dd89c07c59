// ReadPng: chunks, zlib's inflate over the IDAT data, and the five scanline filters.
#include "tests/cli/report/png_image.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "support/error.h"

namespace kiln::cli::testing {
namespace {

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

int Paeth(int a, int b, int c) {
  int p = a + b - c;
  int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace

PngImage ReadPng(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  KILN_CHECK(in.good(), ErrorKind::kParse, path + ": cannot open");
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const uint8_t kSignature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
  KILN_CHECK(file.size() >= 8 && std::memcmp(file.data(), kSignature, 8) == 0, ErrorKind::kParse,
             path + ": not a PNG file");
  PngImage image;
  int bit_depth = 0, color_type = -1, interlace = 0;
  std::vector<uint8_t> compressed;
  size_t pos = 8;
  while (pos + 12 <= file.size()) {
    uint32_t length = BigEndian32(&file[pos]);
    KILN_CHECK(length <= file.size() - pos - 12, ErrorKind::kParse, path + ": truncated chunk");
    std::string type(reinterpret_cast<const char*>(&file[pos + 4]), 4);
    const uint8_t* data = &file[pos + 8];
    if (type == "IHDR") {
      KILN_CHECK(length >= 13, ErrorKind::kParse, path + ": short IHDR");
      image.width = static_cast<int>(BigEndian32(data));
      image.height = static_cast<int>(BigEndian32(data + 4));
      bit_depth = data[8];
      color_type = data[9];
      interlace = data[12];
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + length;
  }
  KILN_CHECK(bit_depth == 8 && interlace == 0 &&
                 (color_type == 0 || color_type == 2 || color_type == 4 || color_type == 6),
             ErrorKind::kParse,
             path + ": expected an 8-bit, non-interlaced grey, RGB or RGBA image");
  KILN_CHECK(image.width > 0 && image.height > 0 && image.width <= 16384 && image.height <= 16384,
             ErrorKind::kParse, path + ": image size out of range");
  const int channels = color_type == 0 ? 1 : color_type == 4 ? 2 : color_type == 2 ? 3 : 4;
  const size_t stride = static_cast<size_t>(image.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * image.height);
  uLongf raw_size = raw.size();
  KILN_CHECK(uncompress(raw.data(), &raw_size, compressed.data(), compressed.size()) == Z_OK &&
                 raw_size == raw.size(),
             ErrorKind::kParse, path + ": corrupt image data");

  std::vector<uint8_t> pixels(stride * image.height);
  for (int y = 0; y < image.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* src = &raw[y * (stride + 1) + 1];
    uint8_t* row = &pixels[y * stride];
    const uint8_t* up = y > 0 ? &pixels[(y - 1) * stride] : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      int a = i >= static_cast<size_t>(channels) ? row[i - channels] : 0;
      int b = up ? up[i] : 0;
      int c = up && i >= static_cast<size_t>(channels) ? up[i - channels] : 0;
      int predictor = 0;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = a;
          break;
        case 2:
          predictor = b;
          break;
        case 3:
          predictor = (a + b) / 2;
          break;
        case 4:
          predictor = Paeth(a, b, c);
          break;
        default:
          throw Error(ErrorKind::kParse, path + ": unknown filter " + std::to_string(filter));
      }
      row[i] = static_cast<uint8_t>(src[i] + predictor);
    }
  }
  image.rgba.resize(static_cast<size_t>(image.width) * image.height * 4);
  for (size_t p = 0; p < static_cast<size_t>(image.width) * image.height; ++p) {
    const uint8_t* s = &pixels[p * channels];
    uint8_t* d = &image.rgba[p * 4];
    if (channels <= 2) {
      d[0] = d[1] = d[2] = s[0];
      d[3] = channels == 2 ? s[1] : 255;
    } else {
      d[0] = s[0];
      d[1] = s[1];
      d[2] = s[2];
      d[3] = channels == 4 ? s[3] : 255;
    }
  }
  return image;
}

}  // namespace kiln::cli::testing
