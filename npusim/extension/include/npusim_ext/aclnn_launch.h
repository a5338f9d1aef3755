/**
 * Launching aclnn operators on npusim's simulated Ascend device.
 *
 * C++ arguments become the argument objects of npusim's aclnn library (`npusim.aclnn`), following MindSpore's
 * mapping: TensorPtr (nullptr / nullopt -> NULL) -> aclTensor, vector<TensorPtr> -> aclTensorList,
 * vector<int64_t> -> aclIntArray, vector<float> -> aclFloatArray, vector<uint8_t> / vector<bool> -> aclBoolArray,
 * ScalarPtr -> aclScalar, TypeId -> aclDataType, string -> const char*, bool / integers / floating point -> passed
 * through.  Then `npusim.aclnn.call(api, args, runtime)` runs the operator on the runtime of the current op call.
 *
 * * `LAUNCH_ACLNN(aclnnX, device_context, stream_id, args...)` (all.h in MindSpore),
 * * `mindspore::custom::CustomLaunchAclnn(api, inputs, outputs)` (values in, output tensors out).
 */
#ifndef NPUSIM_EXT_ACLNN_LAUNCH_H_
#define NPUSIM_EXT_ACLNN_LAUNCH_H_

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "npusim_ext/tensor_py.h"

namespace mindspore::npusim_ext {
/// npusim.aclnn's `call` and argument classes, looked up at the first launch.
struct NPUSIM_EXT_HIDDEN AclnnClasses {
  py::object call, tensor, scalar, int_array, float_array, bool_array, tensor_list, data_type_of;
};

inline AclnnClasses &Acl() {
  PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<AclnnClasses> store;
  return store
    .call_once_and_store_result([]() {
      py::module_ aclnn = py::module_::import("npusim.aclnn");
      AclnnClasses c;
      c.call = aclnn.attr("call");
      c.tensor = aclnn.attr("AclTensor");
      c.scalar = aclnn.attr("AclScalar");
      c.int_array = aclnn.attr("AclIntArray");
      c.float_array = aclnn.attr("AclFloatArray");
      c.bool_array = aclnn.attr("AclBoolArray");
      c.tensor_list = aclnn.attr("AclTensorList");
      c.data_type_of = aclnn.attr("AclDataType").attr("from_type_id");
      return c;
    })
    .get_stored();
}

// ---- C++ argument -> aclnn argument ----------------------------------------------------------------------------
inline py::object ToAcl(const tensor::TensorPtr &t) {
  return t == nullptr ? py::none() : Acl().tensor(t->NumpyView());
}
inline py::object ToAcl(const std::vector<tensor::TensorPtr> &tensors) {
  py::list items;
  for (const auto &t : tensors) items.append(ToAcl(t));
  return Acl().tensor_list(items);
}
inline py::object ToAcl(TypeId type) { return Acl().data_type_of(static_cast<int>(type)); }
inline py::object ToAcl(const std::string &s) { return py::str(s); }
inline py::object ToAcl(const char *s) { return s == nullptr ? py::none() : py::object(py::str(s)); }
inline py::object ToAcl(std::nullptr_t) { return py::none(); }
inline py::object ToAcl(bool b) { return py::bool_(b); }
inline py::object ToAcl(const std::vector<bool> &values) {
  py::tuple items(values.size());
  for (size_t i = 0; i < values.size(); ++i) items[i] = py::bool_(values[i]);
  return Acl().bool_array(items);
}
inline py::object ToAcl(const std::vector<uint8_t> &values) {
  py::tuple items(values.size());
  for (size_t i = 0; i < values.size(); ++i) items[i] = py::bool_(values[i] != 0);
  return Acl().bool_array(items);
}
template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
py::object ToAcl(T v) {
  return py::int_(v);
}
template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
py::object ToAcl(T v) {
  return py::float_(static_cast<double>(v));
}
template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                         !std::is_same_v<T, uint8_t>, int> = 0>
py::object ToAcl(const std::vector<T> &values) {
  py::tuple items(values.size());
  for (size_t i = 0; i < values.size(); ++i) items[i] = py::int_(values[i]);
  return Acl().int_array(items);
}
template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
py::object ToAcl(const std::vector<T> &values) {
  py::tuple items(values.size());
  for (size_t i = 0; i < values.size(); ++i) items[i] = py::float_(static_cast<double>(values[i]));
  return Acl().float_array(items);
}
/// MindSpore's (values, as_tensor) pair: the values as an aclIntArray.
template <typename T>
py::object ToAcl(const std::pair<std::vector<T>, bool> &pair) {
  return ToAcl(pair.first);
}
inline py::object ValueToAcl(const ValuePtr &value);
template <typename T, std::enable_if_t<std::is_base_of_v<Value, T> && !std::is_same_v<T, tensor::Tensor>, int> = 0>
py::object ToAcl(const std::shared_ptr<T> &value) {
  return ValueToAcl(value);
}
template <typename T>
py::object ToAcl(const std::optional<T> &value) {
  return value.has_value() ? ToAcl(*value) : py::none();
}

/// The aclScalar of a scalar Value.
inline py::object ScalarToAcl(const ValuePtr &value) {
#define NPUSIM_EXT_SCALAR(Imm, PyType, name) \
  if (auto p = value->cast<std::shared_ptr<Imm>>()) return Acl().scalar(PyType(p->value()), name);
  NPUSIM_EXT_SCALAR(BoolImm, py::bool_, "bool")
  NPUSIM_EXT_SCALAR(Int8Imm, py::int_, "int8")
  NPUSIM_EXT_SCALAR(Int16Imm, py::int_, "int16")
  NPUSIM_EXT_SCALAR(Int32Imm, py::int_, "int32")
  NPUSIM_EXT_SCALAR(Int64Imm, py::int_, "int64")
  NPUSIM_EXT_SCALAR(UInt8Imm, py::int_, "uint8")
  NPUSIM_EXT_SCALAR(UInt16Imm, py::int_, "uint16")
  NPUSIM_EXT_SCALAR(UInt32Imm, py::int_, "uint32")
  NPUSIM_EXT_SCALAR(UInt64Imm, py::int_, "uint64")
  NPUSIM_EXT_SCALAR(FP32Imm, py::float_, "float32")
  NPUSIM_EXT_SCALAR(FP64Imm, py::float_, "float64")
#undef NPUSIM_EXT_SCALAR
  Raise(ErrorKind::kType, "aclnn: cannot pass the value " + value->ToString() + " as an aclScalar");
}

/// A ValueTuple: a tensor list when its elements are tensors, else an int / float / bool array.
inline py::object SequenceToAcl(const ValueSequencePtr &seq) {
  const auto &items = seq->value();
  if (!items.empty() && items[0] != nullptr && items[0]->isa<tensor::Tensor>()) {
    std::vector<tensor::TensorPtr> tensors;
    for (const auto &item : items) tensors.push_back(item ? item->cast<tensor::TensorPtr>() : nullptr);
    return ToAcl(tensors);
  }
  bool all_bool = !items.empty(), any_float = false;
  py::tuple values(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const auto &item = items[i];
    if (item == nullptr || !item->isa<Scalar>()) {
      Raise(ErrorKind::kType, "aclnn: a ValueTuple argument may hold tensors or scalars, got " + seq->ToString());
    }
    const bool is_bool = item->isa<BoolImm>(), is_float = item->isa<FP32Imm>() || item->isa<FP64Imm>();
    all_bool = all_bool && is_bool;
    any_float = any_float || is_float;
    values[i] = is_float  ? py::object(py::float_(GetValue<double>(item)))
                : is_bool ? py::object(py::bool_(GetValue<bool>(item)))
                          : py::object(py::int_(GetValue<int64_t>(item)));
  }
  if (all_bool) return Acl().bool_array(values);
  if (any_float) return Acl().float_array(values);
  return Acl().int_array(values);
}

/// Any Value as an aclnn argument (Tensor, scalar, ValueTuple, StringImm, None / nullptr).
inline py::object ValueToAcl(const ValuePtr &value) {
  if (value == nullptr || value->isa<None>()) return py::none();
  if (auto t = value->cast<tensor::TensorPtr>()) return ToAcl(t);
  if (value->isa<Scalar>()) return ScalarToAcl(value);
  if (auto seq = value->cast<ValueSequencePtr>()) return SequenceToAcl(seq);
  if (auto s = value->cast<StringImmPtr>()) return py::str(s->value());
  Raise(ErrorKind::kType, "aclnn: cannot pass the value " + value->ToString() + " to an aclnn operator");
}

/// Run aclnn operator `api` with already converted arguments on the current op call's runtime.
inline void CallAclnn(const std::string &api, const py::list &args) {
  py::object runtime = ScopeRuntime();
  if (runtime.is_none()) {  // a launch outside any op call: resolved for this launch
    runtime = GetBridge().op_runtime();
  }
  Acl().call(api, args, runtime);
}

/// `LAUNCH_ACLNN`'s work: convert every argument, then call the operator.
template <typename... Args>
void LaunchAclnn(const char *api, Args &&...args) {
  py::gil_scoped_acquire gil;
  py::list converted;
  (converted.append(ToAcl(args)), ...);
  CallAclnn(api, converted);
}
}  // namespace mindspore::npusim_ext

/// `LAUNCH_ACLNN(aclnnX, device_context, stream_id, args...)`: aclnnXGetWorkspaceSize(args...) + aclnnX on the
/// simulated device (the device context and stream are npusim's; the arguments are converted as listed above).
#define LAUNCH_ACLNN(aclnn_api, device_context, stream_id, ...)                              \
  do {                                                                                       \
    (void)(device_context);                                                                  \
    (void)(stream_id);                                                                       \
    ::mindspore::npusim_ext::LaunchAclnn(#aclnn_api, ##__VA_ARGS__);                         \
  } while (false)

namespace mindspore::custom {
/// Run aclnn operator `aclnn_api` ("aclnnMul", or "Mul": the prefix is added) with `inputs` (tensors, scalars,
/// ValueTuples of ints / floats / bools / tensors, strings) followed by `outputs` (written in place; an output may
/// be an input).  Inputs plus outputs may total 1 to 12, as in MindSpore.
inline void CustomLaunchAclnn(const std::string &aclnn_api, const ValuePtrList &inputs,
                              const tensor::TensorPtrList &outputs) {
  using namespace mindspore::npusim_ext;  // NOLINT
  const size_t arg_num = inputs.size() + outputs.size();
  const std::string api = aclnn_api.rfind("aclnn", 0) == 0 ? aclnn_api : "aclnn" + aclnn_api;
  if (arg_num < 1 || arg_num > 12) {
    Raise(ErrorKind::kRuntime, "For CustomLaunchAclnn '" + api +
                                 "': Aclnn custom only support arg nums between 1 and 12, but get: " +
                                 std::to_string(arg_num));
  }
  py::gil_scoped_acquire gil;
  py::list converted;
  for (const auto &value : inputs) converted.append(ValueToAcl(value));
  for (const auto &out : outputs) {
    if (out == nullptr) {
      Raise(ErrorKind::kValue, "For CustomLaunchAclnn '" + api + "': an output tensor is nullptr");
    }
    converted.append(ToAcl(out));
  }
  CallAclnn(api, converted);
}
}  // namespace mindspore::custom

#endif  // NPUSIM_EXT_ACLNN_LAUNCH_H_
