// NumPy's .npy format for one tensor, read and written: what `tune infer` takes and gives.
// Format versions 1.0 to 3.0, C order, little-endian (or byte-sized) numbers: bool, int8 to
// int64, uint8 to uint64, float16, float32, float64. Anything else (Fortran order, big-endian,
// object arrays, a header that lies about the data's size) is a kiln::Error(kParse) naming the
// file and what was expected, never a crash.
#pragma once

#include <string>

#include "ir/host_tensor.h"

namespace kiln::runtime::model {

// `where` names the bytes in messages (a path).
ir::HostTensor ParseNpy(const std::string& bytes, const std::string& where);
std::string SerializeNpy(const ir::HostTensor& tensor);

// The two above on a file; kiln::Error(kIO) when it cannot be read or written.
ir::HostTensor ReadNpy(const std::string& path);
void WriteNpy(const std::string& path, const ir::HostTensor& tensor);

}  // namespace kiln::runtime::model
