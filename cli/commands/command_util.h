// Helpers the `tune` subcommands share: reading input files, symbolic dimension values from
// --dim NAME=VALUE options, and the concrete shapes of buffers once those are bound.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/buffer.h"

namespace kiln::cli {

// The whole file; kiln::Error(kIO) "PATH: cannot open file".
std::string ReadFile(const std::string& path);

// Parses "n=64" options into a map from dimension name to value; kiln::Error(kParse) naming
// the option when one is not NAME=VALUE with VALUE > 0.
std::map<std::string, int64_t> ParseDims(const std::vector<std::string>& dims);

// The concrete shape of `buffer` with symbolic dims replaced by their --dim values;
// kiln::Error(kParse) naming the buffer and the dimension that has no value.
std::vector<int64_t> ConcreteShape(const ir::Buffer& buffer,
                                   const std::map<std::string, int64_t>& dims);

// "[2, 3]".
std::string ShapeText(const std::vector<int64_t>& shape);

}  // namespace kiln::cli
