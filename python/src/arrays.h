// Arrays across the boundary. In: any array nanobind reads (numpy, or any DLPack producer on
// the CPU), checked against the dtype a model input takes, and read in place when it is
// row-major and 64-byte aligned (the memory kernels are built for); otherwise copied once into
// a HostTensor (a strided array is gathered in that copy). Out: a HostTensor handed to Python as a
// numpy array over its own memory, no copy (the array owns the tensor's buffer).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>

#include "ir/host_tensor.h"

namespace kiln::python {

using InputArray = nanobind::ndarray<nanobind::ro, nanobind::device::cpu>;

// The Kiln dtype of an array's elements; nullopt for one Kiln has no dtype for (complex).
std::optional<ir::DataType> DataTypeOf(const InputArray& array);

// `value` as an array: itself when nanobind reads it as one, else numpy.asarray(value) (lists,
// scalars). kiln::Error(kType) naming `what` when neither works.
InputArray AsInputArray(nanobind::handle value, const std::string& what);

// "float32", or numpy's name of a dtype Kiln lacks.
std::string DtypeName(nanobind::handle value, const InputArray& array);

// `array` (of dtype `dtype`, checked by the caller) as a dense row-major tensor: over its own
// memory, which the tensor keeps alive, when it is row-major and 64-byte aligned; else a copy,
// and `*copied` is set.
ir::HostTensor InputTensor(const InputArray& array, ir::DataType dtype, bool* copied);

// A numpy array over `tensor`'s memory, which it keeps alive.
nanobind::object ToNumpy(const ir::HostTensor& tensor);

}  // namespace kiln::python
