// npusim AICPU compatibility header: CpuKernelContext, what one kernel call sees (op type, tensors, attrs).
#ifndef NPUSIM_AICPU_CPU_CONTEXT_H
#define NPUSIM_AICPU_CPU_CONTEXT_H

#include "cpu_attr_value.h"
#include "cpu_tensor.h"
#include "cpu_types.h"

namespace aicpu {
class NodeDef;

class AICPU_VISIBILITY CpuKernelContext {
  friend class CpuKernelUtils;
  friend struct npusim_rt::Access;

 public:
  explicit CpuKernelContext(DeviceType type);
  CpuKernelContext() = delete;
  ~CpuKernelContext() = default;
  CpuKernelContext(const CpuKernelContext &) = delete;
  CpuKernelContext(CpuKernelContext &&) = delete;
  CpuKernelContext &operator=(const CpuKernelContext &) = delete;
  CpuKernelContext &operator=(CpuKernelContext &&) = delete;

  // Takes the op type, tensors and attributes of `node_def` (sharing its objects, as CANN does), replacing
  // whatever the context held.  KERNEL_STATUS_PARAM_INVALID (logged) for a null NodeDef or a null tensor or
  // attribute in it.  The contexts npusim hands to Compute are built by npusim; this is for kernels and test
  // harnesses that build a sub-context themselves (CpuKernelUtils::CreateNodeDef, node_def_builder.h).
  uint32_t Init(NodeDef *node_def);

  std::string GetOpType() const;
  // The i-th tensor input or output; nullptr when out of range.
  Tensor *Input(uint32_t index) const;
  Tensor *Output(uint32_t index) const;
  // The named attribute; nullptr when the call has no such attribute.
  AttrValue *GetAttr(std::string name) const;
  // Tensor inputs only (attributes are never counted).
  uint32_t GetInputsSize() const;
  uint32_t GetOutputsSize() const;

 private:
  std::string op_;
  std::vector<std::shared_ptr<Tensor>> inputs_;
  std::vector<std::shared_ptr<Tensor>> outputs_;
  std::unordered_map<std::string, std::shared_ptr<AttrValue>> attrs_;
  DeviceType device_type_ = DEVICE;
};
}  // namespace aicpu
#endif  // NPUSIM_AICPU_CPU_CONTEXT_H
