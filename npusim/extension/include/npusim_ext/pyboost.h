/**
 * `ms::pynative::PyboostRunner` (2.7+), `PYBOOST_CALLER`, `AclnnOpRunner` + `LAUNCH_ACLNN_FUNC` (2.7.1+).
 *
 * npusim runs every step at once, in order, on the calling thread: `Run(inputs, outputs)` gives the outputs
 * memory (undefined tensors are skipped), allocates `CalcWorkspace()` bytes and calls `LaunchKernel()`.
 * `Call<N>(func, args...)` copies the arguments, makes tensor arguments contiguous (unless
 * `SetNeedContiguous(false)`), calls `func` and returns its output(s) to Python: N == 1 the tensor, N > 1 a tuple
 * (`func` must return exactly N tensors), N == 0 None.  The aclnn launches of one call run on one runtime.
 */
#ifndef NPUSIM_EXT_PYBOOST_H_
#define NPUSIM_EXT_PYBOOST_H_

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "npusim_ext/device.h"
#include "npusim_ext/ms_tensor.h"

namespace ms::inner {
/// The demangled name of a function (type) for messages.
inline std::string GetFunctionName(const char *name) { return mindspore::npusim_ext::Demangle(name); }

/// An argument as `Call` hands it to the function: tensors made contiguous unless they opted out.
inline Tensor Prepared(const Tensor &t) {
  return t.is_defined() && t.need_contiguous() && !t.is_contiguous() ? t.contiguous() : t;
}
inline std::optional<Tensor> Prepared(const std::optional<Tensor> &t) {
  return t.has_value() ? std::optional<Tensor>(Prepared(*t)) : std::nullopt;
}
inline std::vector<Tensor> Prepared(const std::vector<Tensor> &ts) {
  std::vector<Tensor> out;
  for (const auto &t : ts) out.push_back(Prepared(t));
  return out;
}
template <typename T>
T Prepared(const T &value) {
  return value;
}

inline py::object OutputObject(const Tensor &t) { return t.is_defined() ? t.tensor()->ToPython() : py::none(); }

/// `func`'s result as Call<OUT_NUM> returns it to Python.
template <int OUT_NUM, typename R>
py::object ToPyOutputs(const std::string &op_name, const R &result) {
  if constexpr (std::is_same_v<R, Tensor>) {
    if (OUT_NUM != 1) {
      mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kRuntime,
                                   "For op " + op_name + ", the output size should be equal to " +
                                     std::to_string(OUT_NUM) + ", but got 1");
    }
    return OutputObject(result);
  } else if constexpr (std::is_same_v<R, std::vector<Tensor>>) {
    if (result.size() != static_cast<size_t>(OUT_NUM)) {
      mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kRuntime,
                                   "For op " + op_name + ", the output size should be equal to " +
                                     std::to_string(OUT_NUM) + ", but got " + std::to_string(result.size()));
    }
    if (OUT_NUM == 1) return OutputObject(result[0]);
    py::tuple outputs(result.size());
    for (size_t i = 0; i < result.size(); ++i) outputs[i] = OutputObject(result[i]);
    return std::move(outputs);
  } else {
    return py::cast(result);
  }
}
}  // namespace ms::inner

namespace ms::pynative {
/// An operator run through MindSpore's pyboost pipeline: subclass it, override `LaunchKernel` (and
/// `CalcWorkspace`), create it with `std::make_shared` and call `Run(inputs, outputs)`.
class PyboostRunner : public std::enable_shared_from_this<PyboostRunner> {
 public:
  explicit PyboostRunner(const std::string &op_name) : _op_name_(op_name) {}
  virtual ~PyboostRunner() = default;

  /// Run `func(args...)` as one op and return its OUT_NUM outputs to Python.
  template <int OUT_NUM, typename FuncType, typename... Args>
  static py::object Call(FuncType func, Args &&...args) {
    py::gil_scoped_acquire gil;
    mindspore::npusim_ext::OpScope scope;
    const std::string op_name = inner::GetFunctionName(typeid(FuncType).name());
    auto captured = std::make_tuple(inner::Prepared(std::decay_t<Args>(args))...);
    if constexpr (OUT_NUM == 0) {
      std::apply(func, captured);
      return py::none();
    } else {
      auto result = std::apply(func, captured);
      return inner::ToPyOutputs<OUT_NUM>(op_name, result);
    }
  }

  /// Give the outputs memory, allocate the workspace and launch the kernel.
  void Run(const std::vector<Tensor> &inputs, const std::vector<Tensor> &outputs) {
    py::gil_scoped_acquire gil;
    mindspore::npusim_ext::OpScope scope;
    _inputs_ = inputs;
    _outputs_ = outputs;
    _Run();
  }
  /// Workspace bytes the kernel needs (default 0).
  virtual size_t CalcWorkspace() { return 0; }
  /// Called once the workspace exists.
  virtual void ProcessWithWorkspace() {}
  /// Launch the operator's kernel (its tensors are `inputs()` / `outputs()`).
  virtual void LaunchKernel() = 0;

  const std::string &op_name() const { return _op_name_; }
  const std::vector<ms::Tensor> &inputs() const { return _inputs_; }
  const std::vector<ms::Tensor> &outputs() const { return _outputs_; }
  uint32_t stream_id() const { return static_cast<uint32_t>(_stream_id_); }
  void *stream() { return _stream_; }
  void *workspace_ptr() { return _workspace_ptr_; }

 protected:
  virtual void _Run() {
    _PrepareStream();
    _PrepareDeviceAddress();
    _DispatchLaunchTask();
  }
  virtual void _PrepareStream() {
    _device_context_ = mindspore::device::NpusimDeviceContext(mindspore::device::DeviceType::kAscend);
    _stream_id_ = mindspore::CurrentStream::id();
    _stream_ = &npusim_stream_;
  }
  virtual void _PrepareDeviceAddress() {}
  /// Memory for every defined input and output.
  virtual void _MallocDeviceAddress() {
    for (const auto &t : _inputs_) {
      if (t.is_defined()) (void)t.tensor()->data_c();
    }
    for (const auto &t : _outputs_) {
      if (t.is_defined()) (void)t.tensor()->data_c();
    }
  }
  virtual void _MallocWorkspace() {
    const size_t size = CalcWorkspace();
    npusim_workspace_.assign(size, 0);
    _workspace_ptr_ = size > 0 ? npusim_workspace_.data() : nullptr;
    ProcessWithWorkspace();
  }
  virtual void _DispatchLaunchTask() {
    _MallocDeviceAddress();
    _MallocWorkspace();
    LaunchKernel();
  }
  void ProcessCrossStreamAddress() {}

  std::string _op_name_;
  std::vector<ms::Tensor> _inputs_;
  std::vector<ms::Tensor> _outputs_;
  size_t _stream_id_{0};
  void *_stream_{nullptr};
  mindspore::device::DeviceContext *_device_context_{nullptr};
  void *_workspace_ptr_{nullptr};

 private:
  std::vector<uint8_t> npusim_workspace_;
  int npusim_stream_ = 0;
};

/// PYBOOST_CALLER's work: positional Python arguments -> the function's parameter types -> Call<OUT_NUM>.
template <int OUT_NUM, typename Ret, typename... Args, size_t... I>
py::object PyboostArgsCallerImpl(Ret (*func)(Args...), const py::args &args, std::index_sequence<I...>) {
  return PyboostRunner::Call<OUT_NUM>(func, args[I].cast<std::decay_t<Args>>()...);
}

template <int OUT_NUM, typename Ret, typename... Args>
py::object PyboostArgsCaller(Ret (*func)(Args...), const py::args &args) {
  constexpr size_t N = sizeof...(Args);
  if (args.size() != N) {
    mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kRuntime,
                                 "Argument count mismatch: expected " + std::to_string(N) + ", got " +
                                   std::to_string(args.size()));
  }
  return PyboostArgsCallerImpl<OUT_NUM>(func, args, std::make_index_sequence<N>());
}

/// A PyboostRunner whose kernel is one aclnn call, given as a launch function (see LAUNCH_ACLNN_FUNC).
class AclnnOpRunner : public PyboostRunner {
 public:
  using AclnnLaunchFunc = std::function<void(mindspore::device::DeviceContext *, size_t)>;
  using PyboostRunner::PyboostRunner;
  void SetLaunchFunc(const AclnnLaunchFunc &func) { launch_func_ = func; }
  void LaunchKernel() override {}

 protected:
  void _DispatchLaunchTask() override {
    _MallocDeviceAddress();
    if (!launch_func_) {
      mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kRuntime,
                                   "AclnnOpRunner '" + _op_name_ + "': Run() before SetLaunchFunc()");
    }
    launch_func_(_device_context_, _stream_id_);
  }

  AclnnLaunchFunc launch_func_{nullptr};
};
using InnerAclnnOpRunner = AclnnOpRunner;

/// LAUNCH_ACLNN_FUNC's argument conversion: ms::Tensor -> TensorPtr (undefined -> nullptr), lists and optionals
/// of them likewise; anything else as it is.
inline mindspore::tensor::TensorPtr Arg(const ms::Tensor &t) { return t.is_defined() ? t.tensor() : nullptr; }
inline std::vector<mindspore::tensor::TensorPtr> Arg(const std::vector<ms::Tensor> &tensors) {
  std::vector<mindspore::tensor::TensorPtr> result;
  for (const auto &t : tensors) result.push_back(Arg(t));
  return result;
}
inline std::optional<mindspore::tensor::TensorPtr> Arg(const std::optional<ms::Tensor> &t) {
  return t.has_value() ? std::optional<mindspore::tensor::TensorPtr>(Arg(*t)) : std::nullopt;
}
template <typename T>
T Arg(const T &arg) {
  return arg;
}
}  // namespace ms::pynative

/// A callable for `m.def` that takes positional arguments only and runs FUNC through PyboostRunner::Call<OUT_NUM>.
#define PYBOOST_CALLER(OUT_NUM, FUNC) \
  ([](const py::args &args) -> py::object { return ms::pynative::PyboostArgsCaller<OUT_NUM>(FUNC, args); })

/// The launch function of an AclnnOpRunner: `runner->SetLaunchFunc(LAUNCH_ACLNN_FUNC(aclnnX, args...))`; the
/// arguments are captured now (ms::Tensor as its TensorPtr) and converted when the runner launches.
#define LAUNCH_ACLNN_FUNC(aclnn_api, ...)                                                                  \
  [](auto &&...launch_args) {                                                                              \
    auto captured = std::make_tuple(ms::pynative::Arg(std::forward<decltype(launch_args)>(launch_args))...); \
    return [captured](auto device_context, auto stream_id) {                                               \
      std::apply([&](const auto &...a) { LAUNCH_ACLNN(aclnn_api, device_context, stream_id, a...); },      \
                 captured);                                                                                \
    };                                                                                                     \
  }(__VA_ARGS__)

#endif  // NPUSIM_EXT_PYBOOST_H_
