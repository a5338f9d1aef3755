// Internals of npusim's AICPU kernel runtime (linked into every kernel library; not seen by kernels).
#ifndef NPUSIM_AICPU_RT_INTERNAL_H
#define NPUSIM_AICPU_RT_INTERNAL_H

#include <memory>
#include <string>
#include <vector>

#include "cpu_attr_value.h"
#include "cpu_context.h"
#include "cpu_node_def.h"
#include "cpu_tensor.h"
#include "cpu_tensor_shape.h"
#include "npusim_aicpu/call_abi.h"

#define NPUSIM_RT_EXPORT extern "C" __attribute__((visibility("default")))

namespace aicpu {
namespace npusim_rt {

// The runtime's door into the API classes' private parts (they name it as a friend).
struct Access {
  static std::shared_ptr<TensorShape> NewShape() { return std::shared_ptr<TensorShape>(new TensorShape()); }
  static std::shared_ptr<Tensor> NewTensor() { return std::shared_ptr<Tensor>(new Tensor()); }
  static std::shared_ptr<AttrValue> NewAttr() { return std::shared_ptr<AttrValue>(new AttrValue()); }
  static void SetOpType(CpuKernelContext &ctx, std::string op) { ctx.op_ = std::move(op); }
  static void AddInput(CpuKernelContext &ctx, std::shared_ptr<Tensor> t) { ctx.inputs_.push_back(std::move(t)); }
  static void AddOutput(CpuKernelContext &ctx, std::shared_ptr<Tensor> t) { ctx.outputs_.push_back(std::move(t)); }
  static void AddAttr(CpuKernelContext &ctx, const std::string &name, std::shared_ptr<AttrValue> v) {
    ctx.attrs_[name] = std::move(v);
  }
  static std::shared_ptr<NodeDef> NewNodeDef() { return std::shared_ptr<NodeDef>(new NodeDef(NodeDef::Token{})); }
  // A deep copy of every value slot of `from` (AttrValue itself is not copyable); defined in node_def.cc.
  static std::shared_ptr<AttrValue> CopyAttr(const AttrValue &from);
};

// Where an output's data must end up, fixed before Compute runs.
struct OutputSlot {
  void *buffer = nullptr;
  uint64_t capacity_bytes = 0;
};

// A decoded request: the context handed to Compute plus the outputs' buffers.
struct DecodedCall {
  std::unique_ptr<CpuKernelContext> ctx;
  std::vector<OutputSlot> outputs;
};

// Decodes call.request into `out`; false with `error` set when it is malformed.
bool DecodeRequest(const NpusimAicpuCall &call, DecodedCall &out, std::string &error);
// Checks the outputs after Compute and writes their final descriptions to call.result.  Returns a
// NpusimAicpuRuntimeStatus, with `error` set when not NPUSIM_RT_OK.
uint32_t EncodeResults(NpusimAicpuCall &call, const DecodedCall &decoded, std::string &error);

// Routes KERNEL_LOG_* output of this library into one call's log buffer while the object lives.
class LogCapture {
 public:
  explicit LogCapture(NpusimAicpuCall &call);
  ~LogCapture();
  LogCapture(const LogCapture &) = delete;
  LogCapture &operator=(const LogCapture &) = delete;
};

// Appends one already formatted line to the current call's log (stderr outside calls).
void AppendLogLine(const char *line);

}  // namespace npusim_rt
}  // namespace aicpu
#endif  // NPUSIM_AICPU_RT_INTERNAL_H
