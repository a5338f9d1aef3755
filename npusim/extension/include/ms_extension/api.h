/**
 * npusim's `ms_extension/api.h`: MindSpore's public C++ extension API on npusim (no Ascend needed).
 *
 * pybind11 (`namespace py`), `ShapeVector`, `mindspore::TypeId`, `Value` / `MakeValue` / `ValueTuple`,
 * `mindspore::tensor::Tensor` (= `BaseTensor`) and `TensorPtr` lists, `Function<T>` + `AutogradContext`,
 * `custom::CustomLaunchAclnn`, `LAUNCH_ACLNN`, the 2.7+ `ms::Tensor` API, `ms::pynative::PyboostRunner`,
 * `PYBOOST_CALLER`, `AclnnOpRunner` + `LAUNCH_ACLNN_FUNC`.  aclnn operators run on npusim's simulated Ascend.
 */
#ifndef MS_EXTENSION_API_H_
#define MS_EXTENSION_API_H_

#include "npusim_ext/pybind.h"
#include "npusim_ext/type_id.h"
#include "npusim_ext/log.h"
#include "npusim_ext/value.h"
#include "npusim_ext/tensor.h"
#include "npusim_ext/tensor_py.h"
#include "npusim_ext/aclnn_launch.h"
#include "npusim_ext/autograd.h"
#include "npusim_ext/ms_tensor.h"
#include "npusim_ext/device.h"
#include "npusim_ext/pyboost.h"

#endif  // MS_EXTENSION_API_H_
