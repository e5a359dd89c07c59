// Reading and writing TVM's binary tensor record.
#include "ir/tvm_json/ndarray.h"

#include <cstring>
#include <limits>
#include <string>

#include "ir/tvm_json/base64.h"
#include "support/error.h"

namespace kiln::ir::tvm_json {
namespace {

enum DlCode : uint8_t { kDlInt = 0, kDlUInt = 1, kDlFloat = 2, kDlBFloat = 4, kDlBool = 6 };

class Reader {
 public:
  Reader(const std::vector<uint8_t>& bytes, std::string_view what) : bytes_(bytes), what_(what) {}

  template <typename T>
  T Take(std::string_view field) {
    KILN_CHECK(pos_ + sizeof(T) <= bytes_.size(), ErrorKind::kParse,
               std::string(what_) + ": tensor record of " + std::to_string(bytes_.size()) +
                   " bytes ends before its " + std::string(field) + " (offset " +
                   std::to_string(pos_) + ")");
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  const std::vector<uint8_t>& bytes_;
  std::string_view what_;
  size_t pos_ = 0;
};

DataType FromDlType(uint8_t code, uint8_t bits, uint16_t lanes, std::string_view what) {
  auto fail = [&] {
    return std::string(what) + ": tensor dtype (code " + std::to_string(code) + ", bits " +
           std::to_string(bits) + ", lanes " + std::to_string(lanes) +
           ") has no Kiln equivalent (expected int8..64, uint8..64, float16/32/64, bfloat16 or "
           "bool)";
  };
  KILN_CHECK(lanes >= 1, ErrorKind::kUnsupported, fail());
  bool int_bits = bits == 8 || bits == 16 || bits == 32 || bits == 64;
  switch (code) {
    case kDlInt:
      KILN_CHECK(int_bits, ErrorKind::kUnsupported, fail());
      return DataType::Int(bits, lanes);
    case kDlUInt:
      if (bits == 1) return DataType::Bool(lanes);
      KILN_CHECK(int_bits, ErrorKind::kUnsupported, fail());
      return DataType::UInt(bits, lanes);
    case kDlFloat:
      KILN_CHECK(bits == 16 || bits == 32 || bits == 64, ErrorKind::kUnsupported, fail());
      return DataType::Float(bits, lanes);
    case kDlBFloat:
      KILN_CHECK(bits == 16, ErrorKind::kUnsupported, fail());
      return DataType::BFloat16(lanes);
    case kDlBool:
      KILN_CHECK(bits == 8 || bits == 1, ErrorKind::kUnsupported, fail());
      return DataType::Bool(lanes);
    default:
      throw Error(ErrorKind::kUnsupported, fail());
  }
}

template <typename T>
void Put(std::vector<uint8_t>& out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

}  // namespace

HostTensor DecodeTensor(const std::vector<uint8_t>& bytes, std::string_view what) {
  Reader r(bytes, what);
  uint64_t magic = r.Take<uint64_t>("magic number");
  KILN_CHECK(magic == kTensorMagic, ErrorKind::kParse,
             std::string(what) + ": not a TVM tensor record (magic number " +
                 std::to_string(magic) + ", expected 0xDD5E40F096B4A13F)");
  r.Take<uint64_t>("reserved word");
  r.Take<int32_t>("device type");
  r.Take<int32_t>("device id");
  int32_t ndim = r.Take<int32_t>("ndim");
  uint8_t code = r.Take<uint8_t>("dtype code");
  uint8_t bits = r.Take<uint8_t>("dtype bits");
  uint16_t lanes = r.Take<uint16_t>("dtype lanes");
  KILN_CHECK(ndim >= 0 && static_cast<size_t>(ndim) <= r.remaining() / 8, ErrorKind::kParse,
             std::string(what) + ": tensor record has ndim " + std::to_string(ndim) +
                 ", more dims than the record holds");
  DataType dtype = FromDlType(code, bits, lanes, what);
  std::vector<int64_t> shape;
  int64_t numel = 1;
  bool overflow = false;
  for (int32_t i = 0; i < ndim; ++i) {
    int64_t dim = r.Take<int64_t>("shape");
    KILN_CHECK(dim >= 0, ErrorKind::kParse,
               std::string(what) + ": tensor dim " + std::to_string(i) + " is negative (" +
                   std::to_string(dim) + ")");
    if (dim != 0 && numel > std::numeric_limits<int64_t>::max() / dim) overflow = true;
    numel = overflow ? 0 : numel * dim;
    shape.push_back(dim);
  }
  int64_t data_bytes = r.Take<int64_t>("data byte size");
  int64_t element_bytes = int64_t{dtype.bytes()} * dtype.lanes();
  bool fits = !overflow && numel <= std::numeric_limits<int64_t>::max() / element_bytes;
  KILN_CHECK(fits && data_bytes == numel * element_bytes, ErrorKind::kParse,
             std::string(what) + ": tensor record of " + dtype.ToString() + " with " +
                 (fits ? std::to_string(numel) : std::string("too many")) +
                 " elements says its data has " + std::to_string(data_bytes) + " bytes");
  KILN_CHECK(static_cast<uint64_t>(data_bytes) == r.remaining(), ErrorKind::kParse,
             std::string(what) + ": tensor record says " + std::to_string(data_bytes) +
                 " data bytes follow, but " + std::to_string(r.remaining()) + " do");
  HostTensor tensor(dtype, shape);
  if (data_bytes > 0) std::memcpy(tensor.data(), bytes.data() + r.pos(), data_bytes);
  if (dtype.is_bool()) {
    // Kiln's bool tensors hold 0 or 1; TVM's loader accepts any nonzero byte as true.
    auto* p = static_cast<uint8_t*>(tensor.data());
    for (int64_t i = 0; i < data_bytes; ++i) p[i] = p[i] != 0;
  }
  return tensor;
}

HostTensor DecodeTensorBase64(std::string_view base64, std::string_view what) {
  return DecodeTensor(Base64Decode(base64, what), what);
}

std::vector<uint8_t> EncodeTensor(const HostTensor& tensor) {
  std::vector<uint8_t> out;
  DataType dtype = tensor.dtype();
  uint8_t code = kDlFloat;
  uint8_t bits = static_cast<uint8_t>(dtype.bits());
  switch (dtype.code()) {
    case DataType::Code::kBool:
      code = kDlBool;
      bits = 8;
      break;
    case DataType::Code::kInt:
      code = kDlInt;
      break;
    case DataType::Code::kUInt:
      code = kDlUInt;
      break;
    case DataType::Code::kFloat:
      code = kDlFloat;
      break;
    case DataType::Code::kBFloat:
      code = kDlBFloat;
      break;
    case DataType::Code::kHandle:
      throw Error(ErrorKind::kInternal, "EncodeTensor: a tensor of handles has no TVM record");
  }
  Put<uint64_t>(out, kTensorMagic);
  Put<uint64_t>(out, 0);
  Put<int32_t>(out, 1);  // kDLCPU
  Put<int32_t>(out, 0);
  Put<int32_t>(out, static_cast<int32_t>(tensor.shape().size()));
  Put<uint8_t>(out, code);
  Put<uint8_t>(out, bits);
  Put<uint16_t>(out, static_cast<uint16_t>(dtype.lanes()));
  for (int64_t dim : tensor.shape()) Put<int64_t>(out, dim);
  Put<int64_t>(out, static_cast<int64_t>(tensor.nbytes()));
  const auto* data = static_cast<const uint8_t*>(tensor.data());
  if (tensor.nbytes() > 0) out.insert(out.end(), data, data + tensor.nbytes());
  return out;
}

std::string EncodeTensorBase64(const HostTensor& tensor) {
  return Base64Encode(EncodeTensor(tensor));
}

}  // namespace kiln::ir::tvm_json
