// npusim AICPU compatibility header: NodeDefBuilder, the chained NodeDef filler of canndev-style kernel tests.
// Header-only; written for npusim from the helper's published names and behaviour.
//
//   auto node_def = CpuKernelUtils::CreateNodeDef();
//   NodeDefBuilder(node_def.get(), "Add", "Add")
//       .Input({"x1", DT_FLOAT, {2, 3}, x1_data})
//       .Input({"x2", DT_FLOAT, {3}, x2_data})
//       .Output({"y", DT_FLOAT, {2, 3}, y_data})
//       .Attr("alpha", 1.0f);
//   CpuKernelContext ctx(HOST);
//   ctx.Init(node_def.get());
//   uint32_t status = CpuKernelRegister::Instance().RunCpuKernel(ctx);
//
// A tensor's data size is its element count times the element size (0 without data).  Tensor names are not
// kept (npusim's Tensor has none).  An attribute name given twice keeps the first value (AddAttrs logs it).
#ifndef NPUSIM_AICPU_NODE_DEF_BUILDER_H
#define NPUSIM_AICPU_NODE_DEF_BUILDER_H

#include <memory>
#include <string>
#include <vector>

#include "cpu_kernel.h"
#include "cpu_kernel_register.h"
#include "cpu_kernel_utils.h"
#include "cpu_node_def.h"
#include "status.h"

namespace aicpu {
class NodeDefBuilder {
 public:
  struct InputOutputNode {
    std::string node;
    DataType dType;
    std::vector<int64_t> dims;
    void *data;
    Format format;
  };

  static std::shared_ptr<NodeDef> CreateNodeDef() { return CpuKernelUtils::CreateNodeDef(); }

  NodeDefBuilder(NodeDef *node_def, std::string name, std::string op_name)
      : node_def_(node_def), name_(std::move(name)) {
    node_def_->SetOpType(op_name);
  }

  NodeDefBuilder &Input(const InputOutputNode &input) { return AddTensor(node_def_->AddInputs(), input); }
  NodeDefBuilder &Output(const InputOutputNode &output) { return AddTensor(node_def_->AddOutputs(), output); }

  NodeDefBuilder &Attr(const std::string &name, int32_t value) {
    return Add(name, [value](AttrValue &a) { a.SetInt(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, int64_t value) {
    return Add(name, [value](AttrValue &a) { a.SetInt(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, float value) {
    return Add(name, [value](AttrValue &a) { a.SetFloat(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, double value) {
    return Add(name, [value](AttrValue &a) { a.SetFloat(static_cast<float>(value)); });
  }
  NodeDefBuilder &Attr(const std::string &name, bool value) {
    return Add(name, [value](AttrValue &a) { a.SetBool(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, DataType value) {
    return Add(name, [value](AttrValue &a) { a.SetDataType(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, const std::string &value) {
    return Add(name, [&value](AttrValue &a) { a.SetString(value); });
  }
  // A string literal is a string attribute (not a bool, which the pointer would otherwise convert to).
  NodeDefBuilder &Attr(const std::string &name, const char *value) { return Attr(name, std::string(value)); }
  NodeDefBuilder &Attr(const std::string &name, const std::vector<bool> &value) {
    return Add(name, [&value](AttrValue &a) { a.SetListBool(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, const std::vector<std::string> &value) {
    return Add(name, [&value](AttrValue &a) { a.SetListString(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, const std::vector<int64_t> &value) {
    return Add(name, [&value](AttrValue &a) { a.SetListInt(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, const std::vector<std::vector<int64_t>> &value) {
    return Add(name, [&value](AttrValue &a) { a.SetListListInt(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, const std::vector<float> &value) {
    return Add(name, [&value](AttrValue &a) { a.SetListFloat(value); });
  }
  NodeDefBuilder &Attr(const std::string &name, const std::vector<DataType> &value) {
    return Add(name, [&value](AttrValue &a) { a.SetListDataType(value); });
  }
  // type "shape": a TensorShape attribute with these dimensions (other types add nothing).
  NodeDefBuilder &Attr(const std::string &name, const std::vector<int64_t> &dims, const std::string &type) {
    if (type != "shape") return *this;
    return Add(name, [&dims](AttrValue &a) {
      auto shape = CpuKernelUtils::CreateTensorShape();
      shape->SetDimSizes(dims);
      a.SetTensorShape(shape.get());
    });
  }
  // type "shape_list": a list-of-TensorShape attribute (other types add nothing).
  NodeDefBuilder &Attr(const std::string &name, const std::vector<std::vector<int64_t>> &shapes,
                       const std::string &type) {
    if (type != "shape_list") return *this;
    return Add(name, [&shapes](AttrValue &a) {
      for (const auto &dims : shapes) a.AddListTensorShape()->SetDimSizes(dims);
    });
  }
  NodeDefBuilder &Attr(const std::string &name, Tensor *tensor) {
    return Add(name, [tensor](AttrValue &a) { a.SetTensor(tensor); });
  }
  NodeDefBuilder &Attr(const std::string &name, std::vector<Tensor *> &tensors) {
    return Add(name, [&tensors](AttrValue &a) { a.SetListTensor(tensors); });
  }

 private:
  template <typename Fill>
  NodeDefBuilder &Add(const std::string &name, Fill fill) {
    std::shared_ptr<AttrValue> attr = CpuKernelUtils::CreateAttrValue();
    fill(*attr);
    node_def_->AddAttrs(name, attr.get());
    return *this;
  }

  NodeDefBuilder &AddTensor(const std::shared_ptr<Tensor> &tensor, const InputOutputNode &node) {
    tensor->SetDataType(node.dType);
    tensor->GetTensorShape()->SetDimSizes(node.dims);
    tensor->GetTensorShape()->SetFormat(node.format);
    int64_t count = 1;
    for (int64_t dim : node.dims) count *= dim;
    const int element_bytes = GetSizeByDataType(node.dType);
    const bool sized = node.data != nullptr && element_bytes > 0 && count > 0;
    tensor->SetDataSize(sized ? static_cast<uint64_t>(count) * static_cast<uint64_t>(element_bytes) : 0);
    tensor->SetData(node.data);
    return *this;
  }

  NodeDef *node_def_;
  std::string name_;
};
}  // namespace aicpu
#endif  // NPUSIM_AICPU_NODE_DEF_BUILDER_H
