// Base64 (RFC 4648, standard alphabet, '=' padding) as TVM writes tensors into its JSON graphs:
// the legacy "b64ndarrays" list and the 0.24+ "ffi.Tensor" and "ffi.Bytes" nodes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::ir::tvm_json {

std::string Base64Encode(const std::vector<uint8_t>& bytes);

// Throws kiln::Error (kParse) naming `what` and the offset of the first character that is not
// base64. Whitespace and a missing final padding are accepted, as Python's decoder does.
std::vector<uint8_t> Base64Decode(std::string_view text, std::string_view what);

}  // namespace kiln::ir::tvm_json
