// .npy: a magic string, a version, a header length, a Python dict literal, then the data.
#include "runtime/model/npy.h"

#include <cstring>
#include <limits>

#include "runtime/file_util.h"
#include "support/error.h"

namespace kiln::runtime::model {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// A header longer than this is not one numpy writes for a plain array.
constexpr size_t kMaxHeader = 1 << 16;
constexpr size_t kMaxRank = 32;

[[noreturn]] void Fail(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::kParse, where + ": not a .npy file Kiln reads: " + what);
}

struct Descr {
  const char* text;
  ir::DataType dtype;
};

const Descr kDescrs[] = {
    {"|b1", ir::DataType::Bool()},    {"|i1", ir::DataType::Int(8)},
    {"<i2", ir::DataType::Int(16)},   {"<i4", ir::DataType::Int(32)},
    {"<i8", ir::DataType::Int(64)},   {"|u1", ir::DataType::UInt(8)},
    {"<u2", ir::DataType::UInt(16)},  {"<u4", ir::DataType::UInt(32)},
    {"<u8", ir::DataType::UInt(64)},  {"<f2", ir::DataType::Float(16)},
    {"<f4", ir::DataType::Float(32)}, {"<f8", ir::DataType::Float(64)},
};

// The value of `key` in the header dict: the text after "'key':" up to the matching end.
std::string DictValue(const std::string& header, const std::string& key, const std::string& where) {
  std::string quoted = "'" + key + "'";
  size_t at = header.find(quoted);
  if (at == std::string::npos) Fail(where, "the header has no " + quoted);
  size_t colon = header.find(':', at + quoted.size());
  if (colon == std::string::npos) Fail(where, "no ':' after " + quoted);
  size_t begin = header.find_first_not_of(' ', colon + 1);
  if (begin == std::string::npos) Fail(where, "no value for " + quoted);
  size_t end;
  if (header[begin] == '(') {
    end = header.find(')', begin);
    if (end == std::string::npos) Fail(where, "unclosed tuple for " + quoted);
    ++end;
  } else if (header[begin] == '\'') {
    end = header.find('\'', begin + 1);
    if (end == std::string::npos) Fail(where, "unclosed string for " + quoted);
    ++end;
  } else {
    end = header.find_first_of(",}", begin);
    if (end == std::string::npos) Fail(where, "no end for " + quoted);
  }
  return header.substr(begin, end - begin);
}

std::vector<int64_t> ParseShape(const std::string& tuple, const std::string& where) {
  std::vector<int64_t> shape;
  size_t i = 1;  // after '('
  while (i < tuple.size()) {
    while (i < tuple.size() && (tuple[i] == ' ' || tuple[i] == ',')) ++i;
    if (i >= tuple.size() || tuple[i] == ')') break;
    int64_t v = 0;
    size_t digits = 0;
    while (i < tuple.size() && tuple[i] >= '0' && tuple[i] <= '9') {
      if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) Fail(where, "a dim is too large");
      v = v * 10 + (tuple[i] - '0');
      ++i;
      ++digits;
    }
    if (digits == 0) Fail(where, "shape " + tuple + " is not a tuple of integers");
    if (i < tuple.size() && tuple[i] == 'L') ++i;  // Python 2's long
    shape.push_back(v);
    if (shape.size() > kMaxRank) Fail(where, "rank above " + std::to_string(kMaxRank));
  }
  return shape;
}

}  // namespace

ir::HostTensor ParseNpy(const std::string& bytes, const std::string& where) {
  if (bytes.size() < kMagicSize + 4 || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    Fail(where, "no \\x93NUMPY magic");
  }
  int major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0;
  size_t header_start = 0;
  if (major == 1) {
    header_len =
        static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) Fail(where, "truncated header");
    for (int i = 0; i < 4; ++i) {
      header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
    }
    header_start = 12;
  } else {
    Fail(where, "format version " + std::to_string(major) + " (1 to 3 expected)");
  }
  if (header_len > kMaxHeader || header_start + header_len > bytes.size()) {
    Fail(where, "the header is longer than the file");
  }
  std::string header = bytes.substr(header_start, header_len);
  std::string descr = DictValue(header, "descr", where);
  std::string order = DictValue(header, "fortran_order", where);
  std::string shape_text = DictValue(header, "shape", where);
  if (order != "False") Fail(where, "fortran_order is " + order + " (C order expected)");
  if (descr.size() < 2) Fail(where, "descr " + descr);
  std::string code = descr.substr(1, descr.size() - 2);
  // '=' is native order, little-endian on every machine Kiln runs on.
  if (!code.empty() && code[0] == '=') code[0] = '<';
  if (code.size() == 3 && code[0] == '<' && code[2] == '1') code[0] = '|';
  if (code.size() == 3 && code[0] == '|' && code[2] != '1') code[0] = '<';
  const Descr* found = nullptr;
  for (const Descr& d : kDescrs) {
    if (code == d.text) found = &d;
  }
  if (found == nullptr)
    Fail(where, "dtype " + descr + " (bool, int, uint or float, little-endian)");
  if (shape_text.empty() || shape_text[0] != '(') Fail(where, "shape " + shape_text);
  std::vector<int64_t> shape = ParseShape(shape_text, where);
  size_t data_start = header_start + header_len;
  uint64_t expected = found->dtype.bytes();
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(expected, static_cast<uint64_t>(d), &expected)) {
      Fail(where, "the shape's size overflows");
    }
  }
  if (bytes.size() - data_start != expected) {
    Fail(where, "the header's shape and dtype make " + std::to_string(expected) +
                    " bytes of data, the file has " + std::to_string(bytes.size() - data_start));
  }
  ir::HostTensor tensor(found->dtype, shape);
  if (expected > 0) std::memcpy(tensor.data(), bytes.data() + data_start, expected);
  return tensor;
}

std::string SerializeNpy(const ir::HostTensor& tensor) {
  const Descr* found = nullptr;
  for (const Descr& d : kDescrs) {
    if (d.dtype == tensor.dtype()) found = &d;
  }
  KILN_CHECK(found != nullptr, ErrorKind::kUnsupported,
             ".npy: no NumPy dtype for " + tensor.dtype().ToString());
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    shape += std::to_string(tensor.shape()[i]) + (tensor.shape().size() == 1 ? "," : "");
    if (i + 1 < tensor.shape().size()) shape += ", ";
  }
  shape += ")";
  std::string header = std::string("{'descr': '") + found->text +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // The data starts at a multiple of 64 bytes, the header ends with a newline (numpy's rule).
  size_t total = kMagicSize + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicSize);
  out += static_cast<char>(1);
  out += static_cast<char>(0);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(tensor.data()), tensor.nbytes());
  return out;
}

ir::HostTensor ReadNpy(const std::string& path) { return ParseNpy(ReadWholeFile(path), path); }

void WriteNpy(const std::string& path, const ir::HostTensor& tensor) {
  WriteFileAtomically(path, SerializeNpy(tensor));
}

}  // namespace kiln::runtime::model
