/**
 * MindSpore internals that extension sources use (ms_extension/all.h): `Primitive`,
 * `kernel::pyboost::OpRunner`, `PyBoostUtils` (cur_stream_id, Prepare/MallocOpInputs, Prepare/MallocOpOutputs,
 * DispatchRun), `runtime::PyBoostDeviceTask`, `runtime::ProfilerRecorder`, `kernel::pyboost::abs`,
 * `kernel::pyboost::RequireGradGuard`.
 *
 * npusim has no asynchronous pipeline and no separate device memory: Prepare* do nothing, Malloc* give tensors
 * host memory (the simulated device reads it), DispatchRun runs the task at once on the calling thread.
 */
#ifndef NPUSIM_EXT_INTERNALS_H_
#define NPUSIM_EXT_INTERNALS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "npusim_ext/autograd.h"
#include "npusim_ext/device.h"

namespace mindspore {
/// An operator's primitive: a name and attributes.
class Primitive : public Value {
 public:
  explicit Primitive(std::string name) : name_(std::move(name)) {}
  const std::string &name() const { return name_; }
  Primitive &AddAttr(const std::string &name, const ValuePtr &value) {
    attrs_[name] = value;
    return *this;
  }
  Primitive &set_attr(const std::string &name, const ValuePtr &value) { return AddAttr(name, value); }
  ValuePtr GetAttr(const std::string &name) const {
    auto it = attrs_.find(name);
    return it == attrs_.end() ? nullptr : it->second;
  }
  bool HasAttr(const std::string &name) const { return attrs_.count(name) > 0; }
  std::string ToString() const override { return "Prim[" + name_ + "]"; }

 private:
  std::string name_;
  std::unordered_map<std::string, ValuePtr> attrs_;
};
using PrimitivePtr = std::shared_ptr<Primitive>;
}  // namespace mindspore

namespace mindspore::runtime {
/// A device task: npusim runs it when dispatched.
class PyBoostDeviceTask {
 public:
  explicit PyBoostDeviceTask(std::function<void()> run_func) : run_func_(std::move(run_func)) {}
  virtual ~PyBoostDeviceTask() = default;
  virtual void Run() {
    if (run_func_) run_func_();
  }

 private:
  std::function<void()> run_func_;
};

enum class ProfilerModule { kDefault, kGraphExecutorPy, kRuntime, kPynative, kKernel, kPython, kCapture, kOther };
enum class ProfilerEvent { kDefault, kRunOp, kPyBoostLaunchAclnn, kPyBoostInferOutput, kPyBoostMallocInput,
                           kPyBoostMallocOutput, kPyBoostLaunchKernel, kKernelLaunch, kOther };
/// MindSpore's host-side profiler scope (npusim's profile records the device launches themselves).
class ProfilerRecorder {
 public:
  ProfilerRecorder(ProfilerModule, ProfilerEvent, const std::string &, bool = false, bool = false) {}
};
}  // namespace mindspore::runtime

namespace mindspore::kernel::pyboost {
/// The runner of one internal op: primitive, device context, stream and outputs.
class OpRunner : public std::enable_shared_from_this<OpRunner> {
 public:
  OpRunner(PrimitivePtr primitive, const device::DeviceContext *device_context)
      : primitive_(std::move(primitive)), device_context_(device_context) {}
  virtual ~OpRunner() = default;
  const PrimitivePtr &primitive() const { return primitive_; }
  const device::DeviceContext *device_context() const { return device_context_; }
  size_t stream_id() const { return stream_id_; }
  void set_stream_id(size_t stream_id) { stream_id_ = stream_id; }
  const std::vector<tensor::TensorPtr> &outputs() const { return outputs_; }
  void set_outputs(const std::vector<tensor::TensorPtr> &outputs) { outputs_ = outputs; }
  const tensor::TensorPtr &output(size_t index) const { return outputs_.at(index); }

 private:
  PrimitivePtr primitive_;
  const device::DeviceContext *device_context_;
  size_t stream_id_ = 0;
  std::vector<tensor::TensorPtr> outputs_;
};
using OpPtr = std::shared_ptr<OpRunner>;

namespace npusim_detail {
inline void Allocate(const tensor::TensorPtr &t) {
  if (t != nullptr) (void)t->data_c();
}
inline void Allocate(const std::vector<tensor::TensorPtr> &ts) {
  for (const auto &t : ts) Allocate(t);
}
inline void Allocate(const std::optional<tensor::TensorPtr> &t) {
  if (t.has_value()) Allocate(*t);
}
template <typename T>
void Allocate(const T &) {}
}  // namespace npusim_detail

/// The pyboost pipeline steps, run synchronously on npusim.
struct PyBoostUtils {
  static size_t cur_stream_id() { return CurrentStream::id(); }
  template <typename... Args>
  static void PrepareOpInputs(const device::DeviceContext *, size_t, const Args &...) {}
  static void PrepareOpOutputs(const device::DeviceContext *, size_t, const std::vector<tensor::TensorPtr> &) {}
  template <typename... Args>
  static void MallocOpInputs(const device::DeviceContext *, const Args &...args) {
    (npusim_detail::Allocate(args), ...);
  }
  static void MallocOpOutputs(const device::DeviceContext *, const std::vector<tensor::TensorPtr> &outputs) {
    npusim_detail::Allocate(outputs);
  }
  static void DispatchRun(const std::shared_ptr<runtime::PyBoostDeviceTask> &task) {
    if (task != nullptr) task->Run();
  }
};

/// |input| on the simulated device (aclnnAbs).
inline tensor::TensorPtr abs(const tensor::TensorPtr &input) {
  MS_EXCEPTION_IF_NULL(input);
  auto output = std::make_shared<tensor::Tensor>(input->data_type(), input->shape());
  npusim_ext::LaunchAclnn("aclnnAbs", input, output);
  return output;
}

/// Gradient recording on (true) or off (false) while the guard lives.
class NPUSIM_EXT_HIDDEN RequireGradGuard {
 public:
  explicit RequireGradGuard(bool require_grad) {
    if (!require_grad && npusim_ext::GetBridge().recording().cast<bool>()) {
      guard_ = std::make_unique<npusim_ext::NoGradGuard>(true);
    }
  }

 private:
  std::unique_ptr<npusim_ext::NoGradGuard> guard_;
};
}  // namespace mindspore::kernel::pyboost

#endif  // NPUSIM_EXT_INTERNALS_H_
