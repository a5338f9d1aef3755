/**
 * MindSpore's `Value` hierarchy as the extension API uses it: `Value` / `ValuePtr` (with `isa<T>()` and
 * `cast<TPtr>()`), scalars (`BoolImm`, `Int64Imm`, `FP32Imm` ...; `ScalarPtr`), `StringImm`, `None`,
 * `ValueTuple` / `ValueList`, `MakeValue` and `GetValue`.  A tensor (`mindspore::tensor::Tensor`) is a Value too.
 */
#ifndef NPUSIM_EXT_VALUE_H_
#define NPUSIM_EXT_VALUE_H_

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "npusim_ext/log.h"

namespace mindspore {
class Value;
using ValuePtr = std::shared_ptr<Value>;
using ValuePtrList = std::vector<ValuePtr>;

/// Base of everything a custom op passes around as a value.
class Value : public std::enable_shared_from_this<Value> {
 public:
  Value() = default;
  Value(const Value &) : std::enable_shared_from_this<Value>() {}
  virtual ~Value() = default;

  /// Whether this value is a T (`value->isa<tensor::Tensor>()`).
  template <typename T>
  bool isa() const {
    return dynamic_cast<const T *>(this) != nullptr;
  }
  /// This value as a `std::shared_ptr` of another Value class (`value->cast<ValueTuplePtr>()`), or nullptr.
  template <typename TPtr>
  TPtr cast() const {
    using T = typename TPtr::element_type;
    auto self = std::const_pointer_cast<Value>(shared_from_this());
    return std::dynamic_pointer_cast<T>(self);
  }
  virtual std::string ToString() const { return "Value"; }
  std::string type_name() const { return ToString(); }
};

/// A scalar value; subclasses hold one C++ number.
class Scalar : public Value {};
using ScalarPtr = std::shared_ptr<Scalar>;

template <typename V>
class ImmValue : public Scalar {
 public:
  explicit ImmValue(V v) : value_(v) {}
  V value() const { return value_; }
  std::string ToString() const override {
    if constexpr (std::is_same_v<V, bool>) {
      return value_ ? "true" : "false";
    } else {
      return std::to_string(value_);
    }
  }

 private:
  V value_;
};

#define NPUSIM_EXT_IMM(Name, CType)                        \
  class Name : public ImmValue<CType> {                    \
   public:                                                 \
    using ImmValue<CType>::ImmValue;                       \
  };                                                       \
  using Name##Ptr = std::shared_ptr<Name>;
NPUSIM_EXT_IMM(BoolImm, bool)
NPUSIM_EXT_IMM(Int8Imm, int8_t)
NPUSIM_EXT_IMM(Int16Imm, int16_t)
NPUSIM_EXT_IMM(Int32Imm, int32_t)
NPUSIM_EXT_IMM(Int64Imm, int64_t)
NPUSIM_EXT_IMM(UInt8Imm, uint8_t)
NPUSIM_EXT_IMM(UInt16Imm, uint16_t)
NPUSIM_EXT_IMM(UInt32Imm, uint32_t)
NPUSIM_EXT_IMM(UInt64Imm, uint64_t)
NPUSIM_EXT_IMM(FP32Imm, float)
NPUSIM_EXT_IMM(FP64Imm, double)
#undef NPUSIM_EXT_IMM

/// A string value (an aclnn `const char*` argument).
class StringImm : public Value {
 public:
  explicit StringImm(std::string value) : value_(std::move(value)) {}
  const std::string &value() const { return value_; }
  std::string ToString() const override { return value_; }

 private:
  std::string value_;
};
using StringImmPtr = std::shared_ptr<StringImm>;

/// Python's None as a Value.
class None : public Value {
 public:
  std::string ToString() const override { return "None"; }
};
using NonePtr = std::shared_ptr<None>;
inline const ValuePtr kNone = std::make_shared<None>();

/// A sequence of values.
class ValueSequence : public Value {
 public:
  explicit ValueSequence(ValuePtrList elements) : elements_(std::move(elements)) {}
  const ValuePtrList &value() const { return elements_; }
  size_t size() const { return elements_.size(); }
  const ValuePtr operator[](size_t i) const { return elements_.at(i); }
  std::string ToString() const override {
    std::string text = "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      text += (i ? ", " : "") + (elements_[i] ? elements_[i]->ToString() : std::string("nullptr"));
    }
    return text + ")";
  }

 private:
  ValuePtrList elements_;
};
using ValueSequencePtr = std::shared_ptr<ValueSequence>;
using ValueSequeue = ValueSequence;

class ValueTuple : public ValueSequence {
 public:
  using ValueSequence::ValueSequence;
  ValueTuple(std::initializer_list<ValuePtr> elements) : ValueSequence(ValuePtrList(elements)) {}
};
using ValueTuplePtr = std::shared_ptr<ValueTuple>;

class ValueList : public ValueSequence {
 public:
  using ValueSequence::ValueSequence;
  ValueList(std::initializer_list<ValuePtr> elements) : ValueSequence(ValuePtrList(elements)) {}
};
using ValueListPtr = std::shared_ptr<ValueList>;

/// `MakeValue<int64_t>(1)`, `MakeValue(2.0f)`, `MakeValue("name")`, `MakeValue(std::vector<int64_t>{...})` ...
template <typename T>
ValuePtr MakeValue(T v) {
  using D = std::decay_t<T>;
  if constexpr (std::is_same_v<D, bool>) {
    return std::make_shared<BoolImm>(v);
  } else if constexpr (std::is_same_v<D, int8_t>) {
    return std::make_shared<Int8Imm>(v);
  } else if constexpr (std::is_same_v<D, int16_t>) {
    return std::make_shared<Int16Imm>(v);
  } else if constexpr (std::is_same_v<D, int32_t>) {
    return std::make_shared<Int32Imm>(v);
  } else if constexpr (std::is_same_v<D, uint8_t>) {
    return std::make_shared<UInt8Imm>(v);
  } else if constexpr (std::is_same_v<D, uint16_t>) {
    return std::make_shared<UInt16Imm>(v);
  } else if constexpr (std::is_same_v<D, uint32_t>) {
    return std::make_shared<UInt32Imm>(v);
  } else if constexpr (std::is_same_v<D, uint64_t>) {
    return std::make_shared<UInt64Imm>(v);
  } else if constexpr (std::is_integral_v<D>) {
    return std::make_shared<Int64Imm>(static_cast<int64_t>(v));
  } else if constexpr (std::is_same_v<D, float>) {
    return std::make_shared<FP32Imm>(v);
  } else if constexpr (std::is_floating_point_v<D>) {
    return std::make_shared<FP64Imm>(static_cast<double>(v));
  } else if constexpr (std::is_convertible_v<D, std::string>) {
    return std::make_shared<StringImm>(std::string(v));
  } else if constexpr (std::is_convertible_v<D, ValuePtr>) {
    return v;
  } else {
    ValuePtrList elements;
    for (const auto &item : v) {
      elements.push_back(MakeValue(item));
    }
    return std::make_shared<ValueTuple>(std::move(elements));
  }
}

/// The C++ value of a scalar / string / sequence Value (`GetValue<int64_t>(v)`, `GetValue<std::string>(v)` ...).
template <typename T>
T GetValue(const ValuePtr &value) {
  MS_EXCEPTION_IF_NULL(value);
  if constexpr (std::is_same_v<T, std::string>) {
    auto s = value->cast<StringImmPtr>();
    if (s == nullptr) MS_LOG(EXCEPTION) << "GetValue<std::string>: the value " << value->ToString() << " is not a string";
    return s->value();
  } else if constexpr (std::is_arithmetic_v<T>) {
#define NPUSIM_EXT_TRY(Imm) \
  if (auto p = value->cast<std::shared_ptr<Imm>>()) return static_cast<T>(p->value());
    NPUSIM_EXT_TRY(BoolImm) NPUSIM_EXT_TRY(Int8Imm) NPUSIM_EXT_TRY(Int16Imm) NPUSIM_EXT_TRY(Int32Imm)
    NPUSIM_EXT_TRY(Int64Imm) NPUSIM_EXT_TRY(UInt8Imm) NPUSIM_EXT_TRY(UInt16Imm) NPUSIM_EXT_TRY(UInt32Imm)
    NPUSIM_EXT_TRY(UInt64Imm) NPUSIM_EXT_TRY(FP32Imm) NPUSIM_EXT_TRY(FP64Imm)
#undef NPUSIM_EXT_TRY
    MS_LOG(EXCEPTION) << "GetValue: the value " << value->ToString() << " is not a scalar";
    return T();
  } else {
    using E = typename T::value_type;
    auto seq = value->cast<ValueSequencePtr>();
    if (seq == nullptr) MS_LOG(EXCEPTION) << "GetValue: the value " << value->ToString() << " is not a sequence";
    T result;
    for (const auto &item : seq->value()) {
      result.push_back(GetValue<E>(item));
    }
    return result;
  }
}
}  // namespace mindspore

#endif  // NPUSIM_EXT_VALUE_H_
