// TensorProto decoding: dims and dtype checked, raw_data or the typed field matched against
// the element count before anything is allocated; TensorProto files read whole.
#include "ir/frontend/onnx/tensor_proto.h"

#include <cstring>
#include <fstream>
#include <limits>

#include "ir/frontend/onnx/proto_util.h"
#include "support/half.h"

namespace kiln::ir::frontend::onnx {

namespace {

using Proto = ::onnx::TensorProto;

[[noreturn]] void Fail(ErrorKind kind, const std::string& where, const std::string& message) {
  throw Error(kind, where + ": " + message);
}

// Element count of `dims`, or Fail when a dim is negative or the count overflows.
int64_t ElementCount(const Proto& proto, const std::string& where) {
  int64_t count = 1;
  for (int i = 0; i < proto.dims_size(); ++i) {
    int64_t d = proto.dims(i);
    if (d < 0)
      Fail(ErrorKind::kParse, where,
           "dim " + std::to_string(i) + " is negative (" + std::to_string(d) + ")");
    if (d > (int64_t{1} << 40)) {
      Fail(ErrorKind::kUnsupported, where,
           "dim " + std::to_string(i) + " is " + std::to_string(d) +
               ", larger than Kiln supports (2^40)");
    }
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
      Fail(ErrorKind::kParse, where,
           "the element count overflows (dim " + std::to_string(i) + " is " + std::to_string(d) +
               ")");
    }
    count *= d;
  }
  return count;
}

void RequireCount(int64_t have, int64_t want, const char* field, const std::string& where) {
  if (have != want) {
    Fail(ErrorKind::kParse, where,
         std::string(field) + " holds " + std::to_string(have) + " values but the dims need " +
             std::to_string(want));
  }
}

// Fills `t` from the typed field that the dtype uses.
void DecodeTyped(const Proto& proto, int32_t elem_type, HostTensor& t, const std::string& where) {
  int64_t n = t.numel();
  switch (elem_type) {
    case kOnnxFloat:
      RequireCount(proto.float_data_size(), n, "float_data", where);
      if (n > 0) std::memcpy(t.data(), proto.float_data().data(), n * sizeof(float));
      return;
    case kOnnxDouble:
      RequireCount(proto.double_data_size(), n, "double_data", where);
      if (n > 0) std::memcpy(t.data(), proto.double_data().data(), n * sizeof(double));
      return;
    case kOnnxInt64:
      RequireCount(proto.int64_data_size(), n, "int64_data", where);
      for (int64_t i = 0; i < n; ++i) t.SetInt(i, proto.int64_data(static_cast<int>(i)));
      return;
    case kOnnxUInt32:
    case kOnnxUInt64:
      RequireCount(proto.uint64_data_size(), n, "uint64_data", where);
      for (int64_t i = 0; i < n; ++i) {
        t.SetInt(i, static_cast<int64_t>(proto.uint64_data(static_cast<int>(i))));
      }
      return;
    case kOnnxFloat16:
    case kOnnxBFloat16:
      // The 16 bits of each value are stored in an int32.
      RequireCount(proto.int32_data_size(), n, "int32_data", where);
      for (int64_t i = 0; i < n; ++i) {
        uint16_t bits = static_cast<uint16_t>(proto.int32_data(static_cast<int>(i)));
        std::memcpy(static_cast<uint8_t*>(t.data()) + 2 * i, &bits, 2);
      }
      return;
    default:  // int8/16/32, uint8/16, bool
      RequireCount(proto.int32_data_size(), n, "int32_data", where);
      for (int64_t i = 0; i < n; ++i) t.SetInt(i, proto.int32_data(static_cast<int>(i)));
      return;
  }
}

}  // namespace

HostTensor DecodeTensor(const Proto& proto, const std::string& where) {
  if (proto.data_location() == Proto::EXTERNAL || proto.external_data_size() > 0) {
    std::string file;
    for (const auto& entry : proto.external_data()) {
      if (entry.key() == "location") file = entry.value();
    }
    Fail(ErrorKind::kUnsupported, where,
         "its data is stored in an external file" + (file.empty() ? "" : " ('" + file + "')") +
             ", which is not supported: save the model with its tensors inside the .onnx file");
  }
  if (proto.has_segment()) {
    Fail(ErrorKind::kUnsupported, where, "segmented tensors are not supported");
  }
  int32_t elem_type = proto.data_type();
  std::optional<DataType> dtype = ToKilnDType(elem_type);
  if (!dtype) {
    bool known = IsOnnxDType(elem_type);
    Fail(known ? ErrorKind::kUnsupported : ErrorKind::kParse, where,
         known ? OnnxDTypeName(elem_type) + " tensors are not supported"
               : "data_type " + std::to_string(elem_type) + " is not an ONNX dtype");
  }
  int64_t n = ElementCount(proto, where);
  int64_t elem_bytes = dtype->bytes();
  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    if (n > std::numeric_limits<int64_t>::max() / elem_bytes ||
        static_cast<int64_t>(raw.size()) != n * elem_bytes) {
      Fail(ErrorKind::kParse, where,
           "raw_data has " + std::to_string(raw.size()) + " bytes but " + std::to_string(n) + " " +
               OnnxDTypeName(elem_type) + " elements need " +
               (n > std::numeric_limits<int64_t>::max() / elem_bytes
                    ? std::string("more than fit in memory")
                    : std::to_string(n * elem_bytes)));
    }
    std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
    HostTensor t(*dtype, dims);
    if (n > 0) std::memcpy(t.data(), raw.data(), raw.size());
    if (dtype->is_bool()) {
      auto* p = static_cast<uint8_t*>(t.data());
      for (int64_t i = 0; i < n; ++i) p[i] = p[i] != 0;
    }
    return t;
  }
  // The typed fields hold at most as many values as the message has bytes; checking the count
  // before allocating keeps a hostile "dims: [1e12]" from allocating.
  int64_t available =
      std::max({proto.float_data_size(), proto.int32_data_size(), proto.int64_data_size(),
                proto.double_data_size(), proto.uint64_data_size()});
  if (n > available) {
    Fail(ErrorKind::kParse, where,
         "the dims need " + std::to_string(n) + " values but the tensor holds " +
             std::to_string(available) + " (no raw_data)");
  }
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  HostTensor t(*dtype, dims);
  DecodeTyped(proto, elem_type, t, where);
  return t;
}

OnnxTensor DecodeTensorNoThrow(const Proto& proto, const std::string& where) {
  OnnxTensor result;
  result.name = proto.name();
  try {
    result.value = DecodeTensor(proto, where);
  } catch (const Error& e) {
    result.error_kind = e.kind();
    result.error = e.what();
  }
  return result;
}

std::string ReadFileBytes(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  KILN_CHECK(in.good(), ErrorKind::kIO, "cannot open " + std::string(what) + " '" + path + "'");
  std::streamoff size = in.tellg();
  KILN_CHECK(size >= 0, ErrorKind::kIO, "cannot read " + std::string(what) + " '" + path + "'");
  KILN_CHECK(size <= std::numeric_limits<int32_t>::max(), ErrorKind::kUnsupported,
             path +
                 ": the file is larger than 2 GiB; protobuf messages cannot be, so its tensors "
                 "must be stored as external data, which is not supported");
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  in.read(bytes.data(), size);
  KILN_CHECK(in.good() || (size == 0), ErrorKind::kIO,
             "cannot read " + std::string(what) + " '" + path + "'");
  return bytes;
}

NamedTensor ReadTensorProtoBytes(std::string_view bytes, const std::string& source_name) {
  Proto proto;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(ErrorKind::kParse, source_name +
                                       ": not a valid ONNX TensorProto (the protobuf message is "
                                       "truncated or corrupt)");
  }
  std::string where =
      source_name + ": tensor" + (proto.name().empty() ? "" : " '" + proto.name() + "'");
  return NamedTensor{proto.name(), DecodeTensor(proto, where)};
}

HostTensor BitcastTensor(const HostTensor& t, DataType dtype) {
  KILN_CHECK(dtype.bytes() == t.dtype().bytes() && dtype.is_scalar() && !dtype.is_bool(),
             ErrorKind::kType,
             "cannot view a " + t.Describe() + " tensor as " + dtype.ToString() +
                 " (the element sizes differ)");
  HostTensor out(dtype, t.shape());
  if (t.nbytes() > 0) std::memcpy(out.data(), t.data(), t.nbytes());
  return out;
}

NamedTensor ReadTensorProtoFile(const std::string& path) {
  return ReadTensorProtoBytes(ReadFileBytes(path, "tensor file"), path);
}

}  // namespace kiln::ir::frontend::onnx
