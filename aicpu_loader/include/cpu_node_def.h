// npusim AICPU compatibility header: NodeDef, the description of one kernel call (op type, input and output
// tensors, attributes).  Kernels that run another kernel, and canndev-style test harnesses, build one:
//
//   auto node_def = CpuKernelUtils::CreateNodeDef();
//   node_def->SetOpType("Add");
//   auto x = node_def->AddInputs();  x->SetDataType(DT_FLOAT);  x->GetTensorShape()->SetDimSizes({2, 3}); ...
//   CpuKernelContext sub_ctx(DEVICE);
//   sub_ctx.Init(node_def.get());                                // shares the NodeDef's tensors and attributes
//   CpuKernelRegister::Instance().RunCpuKernel(sub_ctx);
//
// npusim keeps a NodeDef as plain objects; it has no wire format (CANN's is a protobuf), so SerializeToString and
// ParseFromString log a warning and return false.
#ifndef NPUSIM_AICPU_CPU_NODE_DEF_H
#define NPUSIM_AICPU_CPU_NODE_DEF_H

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cpu_attr_value.h"
#include "cpu_tensor.h"

namespace aicpu {
class AICPU_VISIBILITY NodeDef {
  friend class CpuKernelUtils;
  friend struct npusim_rt::Access;

 public:
  NodeDef() = delete;
  ~NodeDef() = default;

  // No wire format in npusim: both log a warning and return false.
  bool ParseFromString(const std::string &str);
  bool SerializeToString(std::string &str) const;

  void SetOpType(const std::string &op);
  std::string GetOpType() const;
  // Appends a new tensor (no data, rank 0, DT_UNDEFINED) and returns it for filling in.
  std::shared_ptr<Tensor> AddInputs();
  std::shared_ptr<Tensor> AddOutputs();
  // Stores a copy of *attr under `name`; false (logged) when attr is null or `name` is already present.
  bool AddAttrs(const std::string &name, const AttrValue *attr);
  int32_t InputsSize() const;
  int32_t OutputsSize() const;
  // The index-th tensor (changes made through it are the NodeDef's); nullptr (logged) when out of range.
  std::shared_ptr<Tensor> MutableInputs(int32_t index) const;
  std::shared_ptr<Tensor> MutableOutputs(int32_t index) const;
  // The attributes by name (the NodeDef's own objects).
  std::unordered_map<std::string, std::shared_ptr<AttrValue>> Attrs() const;

 private:
  struct Token {};
  explicit NodeDef(Token) {}

  std::string op_;
  std::vector<std::shared_ptr<Tensor>> inputs_;
  std::vector<std::shared_ptr<Tensor>> outputs_;
  std::unordered_map<std::string, std::shared_ptr<AttrValue>> attrs_;
};
}  // namespace aicpu
#endif  // NPUSIM_AICPU_CPU_NODE_DEF_H
