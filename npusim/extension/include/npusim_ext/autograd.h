/**
 * `mindspore::pynative::autograd::Function<T>` and `AutogradContext`: a C++ op with its own backward.
 *
 * `T::Apply(args...)` runs `T::Forward(ctx, args...)` with gradient recording off, then (when npusim's tape is
 * recording and a tensor input needs a gradient) records ONE node on the tape whose backward calls
 * `T::Backward(ctx, grad_outputs)`.  An argument is a tensor input only if its decayed type is exactly `TensorPtr`
 * (`BaseTensorPtr`); `Parameter`s are tensors.  MindSpore's rules:
 * * Backward returns one entry per Forward argument (nullptr = zero gradient); another count, or a gradient at a
 *   non-tensor position, raises ExtensionGradientError (a RuntimeError) with MindSpore's wording.
 * * Outputs nobody used get zero gradients, or nullptr after `SetMaterializeGrads(false)`.
 * * `MarkNonDifferentiable` outputs carry no gradient; such an output that is also an input comes back as a
 *   detached shallow copy.  Another output that is an input comes back as a new tensor over the same memory.
 * * `MarkDirty` (in-place) inputs returned as outputs keep their identity and take the new node; a dirty leaf
 *   that needs grad raises "A leaf tensor that need grad is being used in an inplace operator.".
 */
#ifndef NPUSIM_EXT_AUTOGRAD_H_
#define NPUSIM_EXT_AUTOGRAD_H_

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "npusim_ext/tensor_py.h"

namespace mindspore::pynative::autograd {
using TensorPtr = tensor::TensorPtr;
using TensorPtrList = tensor::TensorPtrList;

/// What Forward hands to Backward, and the questions both may ask about gradients.
struct AutogradContext {
  AutogradContext() = default;

  /// Keep tensors (nullptr allowed) for Backward.
  void SaveForBackward(const TensorPtrList &to_save) { to_save_ = to_save; }
  /// The tensors given to SaveForBackward, in the same order.
  TensorPtrList GetSavedTensors() const { return to_save_; }
  /// The inputs Forward modified in place (they must be returned as outputs).
  void MarkDirty(const TensorPtrList &inputs) { dirty_ = inputs; }
  /// Outputs that carry no gradient.
  void MarkNonDifferentiable(const TensorPtrList &outputs) { non_differentiable_ = outputs; }
  /// true (default): outputs nobody used get zero gradients in Backward; false: nullptr.
  void SetMaterializeGrads(bool value) { materialize_grads_ = value; }
  /// Whether the `tensor_index`-th tensor input (counting tensor inputs only) needs a gradient.
  bool NeedsInputGrad(size_t tensor_index) const {
    if (tensor_index >= needs_input_grad_.size()) {
      npusim_ext::Raise(npusim_ext::ErrorKind::kRuntime,
                        name_ + ": NeedsInputGrad(" + std::to_string(tensor_index) +
                          "): tensor index out of range (the function has " +
                          std::to_string(needs_input_grad_.size()) + " tensor inputs)");
    }
    return needs_input_grad_[tensor_index];
  }
  /// Whether `tensor` needs a gradient (an input of this function that the gradient computation tracks).
  bool NeedGrad(const TensorPtr &tensor) const {
    if (tensor == nullptr) return false;
    for (size_t i = 0; i < input_ids_.size(); ++i) {
      if (input_ids_[i] == tensor.get()) return needs_input_grad_[i];
    }
    py::gil_scoped_acquire gil;
    py::object obj = tensor->python_object();
    return !obj.is_none() && npusim_ext::GetBridge().needs_grad(obj).cast<bool>();
  }

  /// Any values Forward wants to hand to Backward.
  std::unordered_map<std::string, ValuePtr> saved_data;

  // ---- npusim's bookkeeping (used by Function<T>) --------------------------------------------------------------
  std::string name_;
  TensorPtrList to_save_;
  TensorPtrList dirty_;
  TensorPtrList non_differentiable_;
  bool materialize_grads_ = true;
  std::vector<const tensor::Tensor *> input_ids_;  // the tensor inputs (identity only)
  std::vector<bool> needs_input_grad_;
  std::vector<bool> is_tensor_input_;
};
using CppFunctionContext = AutogradContext;
using BackwardFn = std::function<TensorPtrList(AutogradContext *, const TensorPtrList &)>;

inline TensorPtrList ToTensorList(const TensorPtr &tensor) { return TensorPtrList{tensor}; }
inline TensorPtrList ToTensorList(const TensorPtrList &tensor_list) { return tensor_list; }

template <typename T>
std::enable_if_t<std::is_same_v<T, TensorPtrList>, T> ToOutputType(const TensorPtrList &tensor_list) {
  return tensor_list;
}
template <typename T>
std::enable_if_t<std::is_same_v<T, TensorPtr>, T> ToOutputType(const TensorPtrList &tensor_list) {
  return tensor_list[0];
}

inline std::string GetFunctionTypeName(const char *name) { return npusim_ext::Demangle(name); }

template <typename X, typename... Args>
using forward_t = decltype(X::Forward(nullptr, std::declval<Args>()...));

/// Base of a C++ op with its own backward: `class MyOp : public Function<MyOp>` with static `Forward` and
/// `Backward`, called as `MyOp::Apply(args...)`.
template <class T>
struct Function {
  template <typename X = T, typename... Args>
  static auto Apply(Args &&...args) -> std::enable_if_t<std::is_same_v<X, T>, forward_t<X, Args...>>;
};
}  // namespace mindspore::pynative::autograd

namespace mindspore::npusim_ext {
using pynative::autograd::AutogradContext;
using pynative::autograd::BackwardFn;

/// Gradient recording off while Forward runs (only when a tape is recording).
class NPUSIM_EXT_HIDDEN NoGradGuard {
 public:
  explicit NoGradGuard(bool active) {
    if (active) {
      guard_ = GetBridge().suspended();
      guard_.attr("__enter__")();
    }
  }
  ~NoGradGuard() {
    if (guard_) {
      try {
        guard_.attr("__exit__")(py::none(), py::none(), py::none());
      } catch (...) {  // NOLINT: restoring the tape cannot fail; never throw from a destructor
      }
    }
  }
  NoGradGuard(const NoGradGuard &) = delete;
  NoGradGuard &operator=(const NoGradGuard &) = delete;

 private:
  py::object guard_;
};

/// Decide which tensor inputs need gradients; returns whether a tape is recording.
inline bool BeginGrad(AutogradContext *ctx, const tensor::TensorPtrList &inputs) {
  ctx->needs_input_grad_.assign(inputs.size(), false);
  if (!GetBridge().recording().cast<bool>()) {
    return false;
  }
  py::list objects;
  for (const auto &t : inputs) objects.append(t ? t->python_object() : py::none());
  auto flags = GetBridge().grad_flags(objects).cast<std::vector<bool>>();
  ctx->needs_input_grad_ = flags;
  return true;
}

inline bool Contains(const tensor::TensorPtrList &list, const tensor::Tensor *t) {
  for (const auto &item : list) {
    if (item.get() == t) return true;
  }
  return false;
}

/// Backward's gradients, checked as MindSpore checks them, as Python gradients of the tensor inputs.
inline py::list CheckedGradients(const AutogradContext &ctx, const tensor::TensorPtrList &grads) {
  const auto &is_tensor = ctx.is_tensor_input_;
  if (grads.size() != is_tensor.size()) {
    Raise(ErrorKind::kGradient, ctx.name_ + " returned an incorrect number of gradients (expected " +
                                  std::to_string(is_tensor.size()) + ", got " + std::to_string(grads.size()) + ")");
  }
  py::list result;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!is_tensor[i]) {
      if (grads[i] != nullptr) {
        Raise(ErrorKind::kGradient, ctx.name_ + " returned a gradient different that is defined at position " +
                                      std::to_string(i + 1) +
                                      ", but the corresponding forward input was not a Tensor");
      }
      continue;
    }
    result.append(grads[i] ? grads[i]->ToPython() : py::none());
  }
  return result;
}

/// The Python backward rule of one recorded Function: Python gradients in, Python gradients out.
inline py::cpp_function BackwardRule(const std::shared_ptr<AutogradContext> &ctx, BackwardFn backward) {
  return py::cpp_function([ctx, backward](const py::list &douts) -> py::list {
    tensor::TensorPtrList grad_outputs;
    for (auto d : douts) grad_outputs.push_back(tensor::Tensor::FromPython(d));
    OpScope scope;
    tensor::TensorPtrList grads = backward(ctx.get(), grad_outputs);
    return CheckedGradients(*ctx, grads);
  });
}

/// After Forward: apply the output rules and, when some input needs a gradient, record the node.
inline void FinishApply(const std::shared_ptr<AutogradContext> &ctx, const tensor::TensorPtrList &inputs,
                        tensor::TensorPtrList *outputs, bool recording, BackwardFn backward) {
  if (outputs->empty()) {
    Raise(ErrorKind::kRuntime, ctx->name_ + ": The output list must not be empty.");
  }
  const size_t n = outputs->size();
  std::vector<bool> is_input(n), diff(n), dirty(n);
  for (size_t i = 0; i < n; ++i) {
    auto &out = (*outputs)[i];
    if (out == nullptr) {
      Raise(ErrorKind::kRuntime, ctx->name_ + ": Forward returned a null tensor as output " + std::to_string(i));
    }
    is_input[i] = Contains(inputs, out.get());
    diff[i] = !Contains(ctx->non_differentiable_, out.get());
    dirty[i] = Contains(ctx->dirty_, out.get());
  }
  bool any_grad = false;
  for (bool b : ctx->needs_input_grad_) any_grad = any_grad || b;
  if (recording && any_grad) {
    for (const auto &d : ctx->dirty_) {
      if (!Contains(*outputs, d.get())) {
        Raise(ErrorKind::kGradient, ctx->name_ + ": The dirty tensors must all be outputs of the forward function.");
      }
    }
    for (size_t i = 0; i < n; ++i) {
      py::object obj = (*outputs)[i]->python_object();
      if (dirty[i] && diff[i] && !obj.is_none() && GetBridge().is_leaf(obj).cast<bool>()) {
        Raise(ErrorKind::kGradient, "A leaf tensor that need grad is being used in an inplace operator.");
      }
    }
  }
  if (!recording) {  // no gradient computation: outputs are returned as they are (MindSpore's no-grad mode)
    return;
  }
  for (size_t i = 0; i < n; ++i) {  // outputs that are inputs: a new identity unless modified in place
    auto &out = (*outputs)[i];
    if (is_input[i] && (!diff[i] || !dirty[i])) out = std::make_shared<tensor::Tensor>(*out);
  }
  if (!any_grad) {
    return;
  }
  for (auto &saved : ctx->to_save_) {  // no reference cycle through an output's Python object
    if (saved != nullptr && Contains(*outputs, saved.get())) saved = std::make_shared<tensor::Tensor>(*saved);
  }
  py::list py_inputs, py_outputs, py_diff, py_dirty;
  for (const auto &t : inputs) py_inputs.append(t ? t->python_object() : py::none());
  for (size_t i = 0; i < n; ++i) {
    py_outputs.append((*outputs)[i]->ToPython());
    py_diff.append(py::bool_(diff[i]));
    py_dirty.append(py::bool_(dirty[i] && diff[i] && is_input[i]));
  }
  GetBridge().record_function(ctx->name_, py_inputs, py_outputs, py_diff, py_dirty, ctx->materialize_grads_,
                              BackwardRule(ctx, std::move(backward)));
}
}  // namespace mindspore::npusim_ext

namespace mindspore::pynative::autograd {
template <class T>
template <typename X, typename... Args>
auto Function<T>::Apply(Args &&...args) -> std::enable_if_t<std::is_same_v<X, T>, forward_t<X, Args...>> {
  py::gil_scoped_acquire gil;
  npusim_ext::OpScope scope;
  auto ctx = std::make_shared<AutogradContext>();
  ctx->name_ = "Function[" + GetFunctionTypeName(typeid(T).name()) + "]";
  TensorPtrList inputs;
  auto collect = [&ctx, &inputs](const auto &arg) {
    using ArgType = std::decay_t<decltype(arg)>;
    if constexpr (std::is_same_v<ArgType, TensorPtr>) {
      inputs.push_back(arg);
      ctx->input_ids_.push_back(arg.get());
      ctx->is_tensor_input_.push_back(true);
    } else {
      ctx->is_tensor_input_.push_back(false);
    }
  };
  (collect(args), ...);
  const bool recording = npusim_ext::BeginGrad(ctx.get(), inputs);

  using forward_return_t = forward_t<X, Args...>;
  forward_return_t output;
  {
    npusim_ext::NoGradGuard no_grad(recording);
    output = T::Forward(ctx.get(), std::forward<Args>(args)...);
  }
  TensorPtrList output_list = ToTensorList(output);
  npusim_ext::FinishApply(ctx, inputs, &output_list, recording,
                          [](AutogradContext *c, const TensorPtrList &grads) { return T::Backward(c, grads); });
  return ToOutputType<forward_return_t>(output_list);
}
}  // namespace mindspore::pynative::autograd

#endif  // NPUSIM_EXT_AUTOGRAD_H_
