// Kernels that fail in each way npusim must report: non-zero returns, C++ exceptions, bad attribute reads.
#include <cstdint>
#include <stdexcept>
#include <vector>
#include "custom_aot_extra.h"

extern "C" int CustomReturnSeven(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                 void *stream, void *extra) {
  return 7;
}

extern "C" int CustomInitFailsInit(int *ndims, int64_t **shapes, const char **dtypes, AotExtra *extra) {
  return 3;
}
extern "C" int CustomInitFails(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                               void *stream, void *extra) {
  return 0;
}

extern "C" int CustomThrows(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                            void *stream, void *extra) {
  throw std::runtime_error("boom from the kernel");
}

extern "C" int CustomMissingAttrInit(int *ndims, int64_t **shapes, const char **dtypes, AotExtra *extra) {
  return extra->Attr<float>("missing") > 0 ? 0 : 1;
}
extern "C" int CustomMissingAttr(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                                 void *stream, void *extra) {
  return 0;
}

extern "C" int CustomWrongKindInit(int *ndims, int64_t **shapes, const char **dtypes, AotExtra *extra) {
  return extra->Attr<int64_t>("name") > 0 ? 0 : 1;
}
extern "C" int CustomWrongKind(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                               void *stream, void *extra) {
  return 0;
}

extern "C" std::vector<int64_t> CustomBadInferInferShape(int *ndims, int64_t **shapes, AotExtra *extra) {
  throw std::invalid_argument("cannot infer this");
}
extern "C" int CustomBadInfer(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                              void *stream, void *extra) {
  return 0;
}
