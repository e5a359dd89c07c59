// DataType: the scalar or vector element type of an expression or buffer, named as in
// TVMScript: "bool", "int8".."int64", "uint8", "float16", "bfloat16", "float32", "float64",
// "handle", with "x4" appended for vectors of 4 lanes ("float32x4").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::ir {

class DataType {
 public:
  enum class Code : uint8_t { kBool, kInt, kUInt, kFloat, kBFloat, kHandle };

  constexpr DataType() = default;
  constexpr DataType(Code code, int bits, int lanes = 1) : code_(code), bits_(bits), lanes_(lanes) {}

  static constexpr DataType Bool(int lanes = 1) { return {Code::kBool, 1, lanes}; }
  static constexpr DataType Int(int bits, int lanes = 1) { return {Code::kInt, bits, lanes}; }
  static constexpr DataType UInt(int bits, int lanes = 1) { return {Code::kUInt, bits, lanes}; }
  static constexpr DataType Float(int bits, int lanes = 1) { return {Code::kFloat, bits, lanes}; }
  static constexpr DataType BFloat16(int lanes = 1) { return {Code::kBFloat, 16, lanes}; }
  static constexpr DataType Handle() { return {Code::kHandle, 64, 1}; }
  static constexpr DataType Void() { return {Code::kHandle, 0, 0}; }

  constexpr Code code() const { return code_; }
  constexpr int bits() const { return bits_; }
  constexpr int lanes() const { return lanes_; }
  constexpr bool is_bool() const { return code_ == Code::kBool; }
  constexpr bool is_int() const { return code_ == Code::kInt; }
  constexpr bool is_uint() const { return code_ == Code::kUInt; }
  // Integer-like: int, uint or bool.
  constexpr bool is_integral() const { return is_int() || is_uint() || is_bool(); }
  constexpr bool is_float() const { return code_ == Code::kFloat || code_ == Code::kBFloat; }
  constexpr bool is_handle() const { return code_ == Code::kHandle && lanes_ > 0; }
  constexpr bool is_void() const { return code_ == Code::kHandle && lanes_ == 0; }
  constexpr bool is_scalar() const { return lanes_ == 1; }
  constexpr bool is_vector() const { return lanes_ > 1; }
  // Bytes of one lane in memory (bool is stored as one byte).
  constexpr int bytes() const { return code_ == Code::kBool ? 1 : (bits_ + 7) / 8; }

  constexpr DataType WithLanes(int lanes) const { return {code_, bits_, lanes}; }
  constexpr DataType element_of() const { return WithLanes(1); }

  // "float32", "int64x8", "bool", "handle", "void".
  std::string ToString() const;
  // Inverse of ToString; nullopt for an unknown name.
  static std::optional<DataType> Parse(std::string_view name);

  friend constexpr bool operator==(const DataType&, const DataType&) = default;

 private:
  Code code_ = Code::kHandle;
  int bits_ = 0;
  int lanes_ = 0;
};

}  // namespace kiln::ir
