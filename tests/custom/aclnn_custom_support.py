"""Shared pieces of the tests of Custom aot ops on Ascend naming aclnn operators (test_custom_aot_aclnn_*.py):
a C++ infer source in MindSpore's custom_ascendc style and a private aot compile cache."""
import textwrap

import pytest

#: C++ shape/type inference for several operators, as a user writes it for ``func="infer.cc:<name>"``
INFER_SOURCE = textwrap.dedent("""
    #include <vector>
    #include <stdint.h>
    #include "custom_aot_extra.h"
    enum TypeId : int {};
    static const int kInt64TypeId = 35;

    static std::vector<int64_t> ShapeOf(int *ndims, int64_t **shapes, int index) {
      std::vector<int64_t> shape;
      for (int i = 0; i < ndims[index]; i++) shape.push_back(shapes[index][i]);
      return shape;
    }

    extern "C" std::vector<int64_t> aclnnMulInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
      return ShapeOf(ndims, shapes, 0);
    }
    extern "C" TypeId aclnnMulInferType(std::vector<TypeId> type_ids, AotExtra *extra) { return type_ids[0]; }

    // the "infer.cc:Mul" spelling of the same operator: the output takes the second input's dtype
    extern "C" std::vector<int64_t> MulInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
      return ShapeOf(ndims, shapes, 1);
    }
    extern "C" TypeId MulInferType(std::vector<TypeId> type_ids, AotExtra *extra) { return type_ids[1]; }

    // a tensor list arrives expanded: shapes[0], shapes[1] ... are its tensors; the axis is a primitive attribute
    extern "C" std::vector<int64_t> aclnnCatInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
      auto axis = extra->Attr<int64_t>("attr_axis");
      std::vector<int64_t> out = ShapeOf(ndims, shapes, 0);
      out[axis] = shapes[0][axis] + shapes[1][axis];
      return out;
    }
    extern "C" TypeId aclnnCatInferType(std::vector<TypeId> type_ids, AotExtra *extra) { return type_ids[0]; }

    // a dynamic output: one shape and one TypeId per output; split_size and dim are the call's attributes
    extern "C" std::vector<std::vector<int64_t>> aclnnSplitTensorInferShape(int *ndims, int64_t **shapes,
                                                                          AotExtra *extra) {
      auto size = extra->Attr<int64_t>("split_size");
      auto dim = extra->Attr<int64_t>("dim");
      std::vector<std::vector<int64_t>> outs;
      for (int64_t start = 0; start < shapes[0][dim]; start += size) {
        std::vector<int64_t> shape = ShapeOf(ndims, shapes, 0);
        shape[dim] = shapes[0][dim] - start < size ? shapes[0][dim] - start : size;
        outs.push_back(shape);
      }
      return outs;
    }
    extern "C" std::vector<TypeId> aclnnSplitTensorInferType(std::vector<TypeId> type_ids, AotExtra *extra) {
      return std::vector<TypeId>{type_ids[0], type_ids[0]};  // the tests split into two parts
    }

    extern "C" std::vector<int64_t> aclnnArgMinInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
      auto dim = extra->Attr<int64_t>("dim");
      auto keep = extra->Attr<bool>("keep_dim");
      std::vector<int64_t> out;
      for (int i = 0; i < ndims[0]; i++) {
        if (i != dim) out.push_back(shapes[0][i]);
        else if (keep) out.push_back(1);
      }
      return out;
    }
    extern "C" TypeId aclnnArgMinInferType(std::vector<TypeId> type_ids, AotExtra *extra) {
      return static_cast<TypeId>(kInt64TypeId);
    }

    // window sizes from primitive attributes (MindSpore's custom_cpp_infer.cc reads them so); input C, H, W
    extern "C" std::vector<int64_t> aclnnAvgPool2dInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
      auto kernel = extra->Attr<std::vector<int64_t>>("kernel_size");
      auto stride = extra->Attr<std::vector<int64_t>>("stride");
      auto padding = extra->Attr<std::vector<int64_t>>("padding");
      std::vector<int64_t> out{shapes[0][0]};
      for (int i = 0; i < 2; i++) out.push_back((shapes[0][i + 1] + 2 * padding[i] - kernel[i]) / stride[i] + 1);
      return out;
    }

    // shape only: out_dtype must come from Python
    extern "C" std::vector<int64_t> aclnnExpInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
      return ShapeOf(ndims, shapes, 0);
    }

    // a broken infer function: crashes
    extern "C" std::vector<int64_t> aclnnNegInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
      volatile int64_t *nowhere = nullptr;
      int64_t extent = *nowhere;
      return std::vector<int64_t>(1, extent);
    }
""")


@pytest.fixture(scope="module")
def infer_file(tmp_path_factory):
    """The path of INFER_SOURCE written as ``infer_file/custom_cpp_infer.cc``, compiled into a private cache (one
    place per test session, so the modules using it share one compilation)."""
    root = tmp_path_factory.getbasetemp() / "aclnn_custom"
    source = root / "infer_file" / "custom_cpp_infer.cc"
    if not source.is_file():
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(INFER_SOURCE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NPUSIM_CACHE_DIR", str(root / "cache"))
        yield str(source)
