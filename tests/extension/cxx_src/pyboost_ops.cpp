// 2.7+ ms::Tensor / PyboostRunner / AclnnOpRunner ops for tests/extension/test_cxx_pyboost.py, built for the CPU
// backend (no CUSTOM_ASCEND_OP): host kernels use host memory, aclnn calls still run on npusim's device.
#include <string>
#include <vector>

#include "ms_extension/all.h"

namespace custom {
// aclnnAdd(self, other, alpha, out) launched from a PyboostRunner subclass
class AddRunner : public ms::pynative::PyboostRunner {
 public:
  using PyboostRunner::PyboostRunner;
  void LaunchKernel() override {
    auto alpha = mindspore::MakeValue(1.0f)->cast<mindspore::ScalarPtr>();
    LAUNCH_ACLNN(aclnnAdd, _device_context_, _stream_id_, inputs()[0], inputs()[1], alpha, outputs()[0]);
  }
};

ms::Tensor add(const ms::Tensor &x, const ms::Tensor &y) {
  ms::Tensor out(x.data_type(), x.shape());
  auto runner = std::make_shared<AddRunner>("Add");
  runner->Run({x, y}, {out});
  return out;
}

// a host kernel: out = 2 * x + workspace check, on the CPU
class HostDouble : public ms::pynative::PyboostRunner {
 public:
  using PyboostRunner::PyboostRunner;
  size_t CalcWorkspace() override { return 64; }
  void LaunchKernel() override {
    if (workspace_ptr() == nullptr) MS_LOG(EXCEPTION) << "no workspace";
    const auto &x = inputs()[0];
    const float *src = static_cast<const float *>(x.GetDataPtr());
    float *dst = static_cast<float *>(outputs()[0].GetDataPtr());
    for (size_t i = 0; i < x.numel(); ++i) dst[i] = 2 * src[i];
  }
};

ms::Tensor host_double(const ms::Tensor &x) {
  ms::Tensor out(x.data_type(), x.shape());
  bool had_memory = out.GetDataPtr() != nullptr;
  std::make_shared<HostDouble>("HostDouble")->Run({x, ms::Tensor()}, {out});
  if (had_memory || out.GetDataPtr() == nullptr) MS_LOG(EXCEPTION) << "Run did not give the output memory";
  return out;
}

// views: two halves of dim 1 (strided), made contiguous by Call when passed on
std::vector<ms::Tensor> halves(const ms::Tensor &x) { return x.chunk(2, 1); }

py::tuple strided_info(const ms::Tensor &x) {
  auto parts = x.chunk(2, 1);
  const auto &p = parts[1];
  return py::make_tuple(p.is_contiguous(), p.stride(), p.storage_offset(), p.shape());
}

std::vector<ms::Tensor> three(const ms::Tensor &x) { return {x, x, x}; }

// aclnnArgMin through AclnnOpRunner + LAUNCH_ACLNN_FUNC (2.7.1)
ms::Tensor argmin(const ms::Tensor &x, int64_t dim, bool keepdim) {
  auto shape = x.shape();
  int64_t d = dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim;
  if (keepdim) {
    shape[d] = 1;
  } else {
    shape.erase(shape.begin() + d);
  }
  ms::Tensor out(ms::TypeId::kNumberTypeInt64, shape);
  auto runner = std::make_shared<ms::pynative::AclnnOpRunner>("ArgMin");
  runner->SetLaunchFunc(LAUNCH_ACLNN_FUNC(aclnnArgMin, x, dim, keepdim, out));
  runner->Run({x}, {out});
  return out;
}

// aclnnCat(tensors, dim, out) via LAUNCH_ACLNN with a vector<TensorPtr> and a plain int
mindspore::tensor::TensorPtr cat(const std::vector<mindspore::tensor::TensorPtr> &xs, int64_t dim) {
  auto shape = xs[0]->shape();
  shape[dim] = 0;
  for (const auto &x : xs) shape[dim] += x->shape()[dim];
  auto out = std::make_shared<mindspore::tensor::Tensor>(xs[0]->data_type(), shape);
  LAUNCH_ACLNN(aclnnCat, mindspore::runtime::OpRunner::GetDeviceContext("Ascend"), 0, xs, dim, out);
  return out;
}

// a launch of an operator npusim does not provide
ms::Tensor unknown(const ms::Tensor &x) {
  ms::Tensor out(x.data_type(), x.shape());
  auto runner = std::make_shared<ms::pynative::AclnnOpRunner>("NoSuchOp");
  runner->SetLaunchFunc(LAUNCH_ACLNN_FUNC(aclnnNoSuchOperator, x, out));
  runner->Run({x}, {out});
  return out;
}

py::tuple info(const ms::Tensor &x) {
  if (!x.is_defined()) return py::make_tuple(false);
  return py::make_tuple(true, static_cast<int>(x.data_type()), x.shape(), x.numel(), x.stride(),
                        x.storage_offset(), x.is_contiguous(), x.GetDataPtr() != nullptr);
}

py::tuple methods(const ms::Tensor &x, const ms::Tensor &index) {
  return py::make_tuple(x.reshape({-1, 2}), x.flatten(), x.cast(ms::TypeId::kNumberTypeFloat16),
                        x.index_select(0, index), x.repeat({2, 1}), x.repeat_interleave(2, 0),
                        x.repeat_interleave(ms::tensor(std::vector<int64_t>{1, 0, 2, 1}), 1),
                        x.chunk(2, 1)[1].contiguous());
}

py::tuple factories() {
  return py::make_tuple(ms::tensor(3), ms::tensor(std::vector<double>{1.5, 2.5}),
                        ms::tensor(std::vector<int64_t>{4, 5}, ms::TypeId::kNumberTypeInt32),
                        ms::ones({2, 2}), ms::zeros({3}, ms::TypeId::kNumberTypeInt32), ms::tensor(0.5));
}

// every C++ argument kind of LAUNCH_ACLNN, converted (not launched)
py::list converted_args(const ms::Tensor &x) {
  using mindspore::npusim_ext::ToAcl;
  using ms::ToAcl;
  py::list out;
  out.append(ToAcl(x));
  out.append(ToAcl(ms::Tensor()));
  out.append(ToAcl(std::vector<ms::Tensor>{x, x}));
  out.append(ToAcl(std::vector<int64_t>{1, 2}));
  out.append(ToAcl(std::optional<std::vector<int64_t>>()));
  out.append(ToAcl(std::vector<float>{0.5f}));
  out.append(ToAcl(std::vector<uint8_t>{1, 0}));
  out.append(ToAcl(mindspore::MakeValue(2.5)->cast<mindspore::ScalarPtr>()));
  out.append(ToAcl(mindspore::MakeValue(true)->cast<mindspore::ScalarPtr>()));
  out.append(ToAcl(mindspore::kNumberTypeFloat16));
  out.append(ToAcl(std::string("BSND")));
  out.append(ToAcl(true));
  out.append(ToAcl(int64_t{7}));
  out.append(ToAcl(0.25));
  out.append(ToAcl(static_cast<int8_t>(1)));
  return out;
}
}  // namespace custom

PYBIND11_MODULE(MS_EXTENSION_NAME, m) {
  m.def("add", [](const ms::Tensor &x, const ms::Tensor &y) {
    return ms::pynative::PyboostRunner::Call<1>(custom::add, x, y);
  });
  m.def("host_double", [](const ms::Tensor &x) { return ms::pynative::PyboostRunner::Call<1>(custom::host_double, x); });
  m.def("halves", PYBOOST_CALLER(2, custom::halves));
  m.def("bad_count", PYBOOST_CALLER(2, custom::three));
  m.def("seen_contiguous", [](const ms::Tensor &x, bool need) {
    auto part = x.chunk(2, 1)[1];
    part.SetNeedContiguous(need);
    return ms::pynative::PyboostRunner::Call<0>([](const ms::Tensor &t) {
      if (!t.is_contiguous()) MS_LOG(EXCEPTION) << "the function saw a strided tensor";
    }, part);
  });
  m.def("strided_info", &custom::strided_info);
  m.def("argmin", PYBOOST_CALLER(1, custom::argmin));
  m.def("cat", &custom::cat);
  m.def("unknown", PYBOOST_CALLER(1, custom::unknown));
  m.def("info", &custom::info);
  m.def("methods", &custom::methods);
  m.def("factories", &custom::factories);
  m.def("converted_args", &custom::converted_args);
}
