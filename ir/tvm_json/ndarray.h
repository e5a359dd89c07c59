// TVM's binary tensor format (NDArray::Save, tvm::ffi::Tensor in 0.24+), as it appears base64
// encoded in JSON graphs: little-endian
//   uint64 magic 0xDD5E40F096B4A13F, uint64 reserved (0),
//   int32 device_type, int32 device_id, int32 ndim,
//   uint8 dtype code, uint8 dtype bits, uint16 dtype lanes,
//   int64 shape[ndim], int64 data byte size, data bytes (row-major).
// Dtype codes are DLPack's: 0 int, 1 uint (bits 1 is TVM's old bool), 2 float, 4 bfloat, 6 bool.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/host_tensor.h"

namespace kiln::ir::tvm_json {

inline constexpr uint64_t kTensorMagic = 0xDD5E40F096B4A13FULL;

// Throws kiln::Error naming `what` (kParse for a malformed record, kUnsupported for a dtype
// Kiln has no HostTensor for). The byte count is checked against the shape before anything is
// allocated, so a forged header cannot ask for more memory than the input holds.
HostTensor DecodeTensor(const std::vector<uint8_t>& bytes, std::string_view what);
// The same from the base64 text of a record.
HostTensor DecodeTensorBase64(std::string_view base64, std::string_view what);

// The record TVM writes for `tensor` on the CPU (device 1, id 0); bool as DLPack bool (code 6,
// 8 bits), as TVM 0.24+ writes it.
std::vector<uint8_t> EncodeTensor(const HostTensor& tensor);
std::string EncodeTensorBase64(const HostTensor& tensor);

}  // namespace kiln::ir::tvm_json
