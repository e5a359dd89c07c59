// The screenshot reader: PNG files written here with zlib, every scanline filter and the
// colour types Chromium writes, read back pixel for pixel; malformed files are errors.
#include "tests/cli/report/png_image.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "support/error.h"

namespace kiln::cli::testing {
namespace {

void Chunk(std::string& out, const std::string& type, const std::string& data) {
  auto be32 = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xff);
  };
  be32(static_cast<uint32_t>(data.size()));
  std::string body = type + data;
  out += body;
  be32(static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
}

// A PNG of `width` x rows, `channels` 3 or 4, each row stored with the filter of its index
// (mod 5) applied to `pixels`.
std::string EncodePng(int width, int height, int channels, const std::vector<uint8_t>& pixels) {
  const int stride = width * channels;
  std::string raw;
  for (int y = 0; y < height; ++y) {
    int filter = y % 5;
    raw += static_cast<char>(filter);
    for (int i = 0; i < stride; ++i) {
      int x = pixels[y * stride + i];
      int a = i >= channels ? pixels[y * stride + i - channels] : 0;
      int b = y > 0 ? pixels[(y - 1) * stride + i] : 0;
      int c = y > 0 && i >= channels ? pixels[(y - 1) * stride + i - channels] : 0;
      int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      int paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      int predictor[5] = {0, a, b, (a + b) / 2, paeth};
      raw += static_cast<char>((x - predictor[filter]) & 0xff);
    }
  }
  uLongf size = compressBound(raw.size());
  std::string compressed(size, '\0');
  compress(reinterpret_cast<Bytef*>(compressed.data()), &size,
           reinterpret_cast<const Bytef*>(raw.data()), raw.size());
  compressed.resize(size);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string header;
  for (uint32_t v : {static_cast<uint32_t>(width), static_cast<uint32_t>(height)}) {
    for (int s = 24; s >= 0; s -= 8) header += static_cast<char>((v >> s) & 0xff);
  }
  header += std::string{8, static_cast<char>(channels == 4 ? 6 : 2), 0, 0, 0};
  Chunk(png, "IHDR", header);
  Chunk(png, "IDAT", compressed);
  Chunk(png, "IEND", "");
  return png;
}

class PngTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& bytes) {
    std::ofstream(path_, std::ios::binary) << bytes;
    return path_;
  }
  ~PngTest() override { std::filesystem::remove(path_); }
  std::string path_ =
      (std::filesystem::temp_directory_path() / ("kiln-png-" + std::to_string(::getpid()) + ".png"))
          .string();
};

TEST_F(PngTest, EveryFilterAndColourTypeReadsBack) {
  for (int channels : {3, 4}) {
    const int width = 7, height = 10;
    std::vector<uint8_t> pixels(width * height * channels);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 37 + i / 5);
    PngImage image = ReadPng(Write(EncodePng(width, height, channels, pixels)));
    ASSERT_EQ(image.width, width);
    ASSERT_EQ(image.height, height);
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const uint8_t* p = image.Pixel(x, y);
        const uint8_t* e = &pixels[(y * width + x) * channels];
        EXPECT_EQ(p[0], e[0]) << x << "," << y;
        EXPECT_EQ(p[1], e[1]);
        EXPECT_EQ(p[2], e[2]);
        EXPECT_EQ(p[3], channels == 4 ? e[3] : 255);
      }
    }
  }
}

TEST_F(PngTest, MalformedFilesAreErrors) {
  std::vector<uint8_t> pixels(4 * 4 * 3, 200);
  std::string good = EncodePng(4, 4, 3, pixels);
  for (const std::string& bad :
       {std::string("not a png"), good.substr(0, 40), good.substr(0, 8) + good.substr(20)}) {
    EXPECT_THROW(ReadPng(Write(bad)), Error);
  }
  EXPECT_THROW(ReadPng(path_ + ".missing"), Error);
}

}  // namespace
}  // namespace kiln::cli::testing
