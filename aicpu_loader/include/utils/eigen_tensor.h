// npusim AICPU compatibility header (MindSpore / canndev path utils/eigen_tensor.h): TTypes, the row-major
// Eigen::TensorMap types of AICPU kernels, and EigenTensor, a view of a tensor's data through those maps.
// Written for npusim from the helper's published names and behaviour; header-only, no CANN source text.
//
//   EigenTensor x(ctx.Input(0), ctx.Input(0)->GetData());
//   auto flat = x.flat<float>();           // rank 1 over every element
//   auto m = x.matrix<float>();            // rank 2; tensor<T, N>() for any rank N
//   y.flat<float>() = flat * 2.0f + flat.square();
//
// tensor<T, N>() maps the shape onto N dimensions: a shorter shape is padded with trailing 1s (as CANN's helper
// does); a longer one has its extra trailing dimensions folded into the last mapped one, so the element count
// is kept.  The shape is read from the tensor when the map is made (an output whose shape the kernel sets
// afterwards maps the new shape); the ShapeVector constructor maps a fixed shape.
// Aligned maps (Tensor, Flat, Matrix ...) need data aligned for Eigen's packets; npusim's tensors are 64-byte
// aligned.  The Unaligned* types are for pointers into the middle of a buffer.
#ifndef AICPU_EIGENTENSOR_H
#define AICPU_EIGENTENSOR_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

#if defined(__has_include)
#if !__has_include("unsupported/Eigen/CXX11/Tensor")
// Without Eigen on the include path: npusim's dependency cmeel-eigen provides it (pip install cmeel-eigen), or
// Debian's libeigen3-dev, or NPUSIM_EIGEN_INCLUDE=/dir.
#error "utils/eigen_tensor.h needs Eigen 3.4 (pip install cmeel-eigen, libeigen3-dev or NPUSIM_EIGEN_INCLUDE)"
#endif
#endif
#include "unsupported/Eigen/CXX11/Tensor"

#include "../cpu_tensor.h"
#include "../inc/kernel_log.h"

namespace aicpu {
namespace npusim_eigen {
template <typename T, int Rank, typename Index>
using RowMajor = Eigen::Tensor<T, Rank, Eigen::RowMajor, Index>;
template <typename T, typename Index>
using RowMajorScalar = Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor, Index>;
}  // namespace npusim_eigen

// The TensorMap types of a kernel working on elements of type T.
template <typename T, int NDIMS = 1, typename IndexType = Eigen::DenseIndex>
struct TTypes {
  // Rank NDIMS.
  using Tensor = Eigen::TensorMap<npusim_eigen::RowMajor<T, NDIMS, IndexType>, Eigen::Aligned>;
  using ConstTensor = Eigen::TensorMap<npusim_eigen::RowMajor<const T, NDIMS, IndexType>, Eigen::Aligned>;
  using UnalignedTensor = Eigen::TensorMap<npusim_eigen::RowMajor<T, NDIMS, IndexType>>;
  using UnalignedConstTensor = Eigen::TensorMap<npusim_eigen::RowMajor<const T, NDIMS, IndexType>>;
  using Tensor32Bit = Eigen::TensorMap<npusim_eigen::RowMajor<T, NDIMS, int>, Eigen::Aligned>;

  // Rank 0.
  using Scalar = Eigen::TensorMap<npusim_eigen::RowMajorScalar<T, IndexType>, Eigen::Aligned>;
  using ConstScalar = Eigen::TensorMap<npusim_eigen::RowMajorScalar<const T, IndexType>, Eigen::Aligned>;
  using UnalignedScalar = Eigen::TensorMap<npusim_eigen::RowMajorScalar<T, IndexType>>;
  using UnalignedConstScalar = Eigen::TensorMap<npusim_eigen::RowMajorScalar<const T, IndexType>>;

  // Rank 1 (Flat and Vec are the same type).
  using Flat = Eigen::TensorMap<npusim_eigen::RowMajor<T, 1, IndexType>, Eigen::Aligned>;
  using ConstFlat = Eigen::TensorMap<npusim_eigen::RowMajor<const T, 1, IndexType>, Eigen::Aligned>;
  using Vec = Flat;
  using ConstVec = ConstFlat;
  using UnalignedFlat = Eigen::TensorMap<npusim_eigen::RowMajor<T, 1, IndexType>>;
  using UnalignedConstFlat = Eigen::TensorMap<npusim_eigen::RowMajor<const T, 1, IndexType>>;
  using UnalignedVec = UnalignedFlat;
  using UnalignedConstVec = UnalignedConstFlat;

  // Rank 2.
  using Matrix = Eigen::TensorMap<npusim_eigen::RowMajor<T, 2, IndexType>, Eigen::Aligned>;
  using ConstMatrix = Eigen::TensorMap<npusim_eigen::RowMajor<const T, 2, IndexType>, Eigen::Aligned>;
  using UnalignedMatrix = Eigen::TensorMap<npusim_eigen::RowMajor<T, 2, IndexType>>;
  using UnalignedConstMatrix = Eigen::TensorMap<npusim_eigen::RowMajor<const T, 2, IndexType>>;
};

using ShapeVector = std::vector<int64_t>;

// A tensor's data seen through TTypes maps; it owns nothing (the tensor and the data must outlive the maps).
class EigenTensor {
 public:
  EigenTensor() = delete;
  EigenTensor(Tensor *tensor, void *data) : tensor_(tensor), data_(data) {}
  // A buffer of the given shape that is not a kernel tensor (scratch space, a slice ...).
  EigenTensor(const ShapeVector &shape, void *data) : shape_(shape), data_(data) {}
  ~EigenTensor() = default;

  // The wrapped tensor; nullptr for the ShapeVector form.
  const Tensor *GetTensor() const { return tensor_; }

  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::Tensor tensor() {
    return typename TTypes<T, NDIMS>::Tensor(static_cast<T *>(data_), AsEigenDSizes<NDIMS>());
  }
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::ConstTensor tensor() const {
    return typename TTypes<T, NDIMS>::ConstTensor(static_cast<const T *>(data_), AsEigenDSizes<NDIMS>());
  }

  // Every element as one dimension.
  template <typename T>
  typename TTypes<T>::Flat flat() {
    return typename TTypes<T>::Flat(static_cast<T *>(data_), ElementCount());
  }
  template <typename T>
  typename TTypes<T>::ConstFlat flat() const {
    return typename TTypes<T>::ConstFlat(static_cast<const T *>(data_), ElementCount());
  }

  template <typename T>
  typename TTypes<T>::Vec vec() {
    return tensor<T, 1>();
  }
  template <typename T>
  typename TTypes<T>::ConstVec vec() const {
    return tensor<T, 1>();
  }

  template <typename T>
  typename TTypes<T>::Matrix matrix() {
    return tensor<T, 2>();
  }
  template <typename T>
  typename TTypes<T>::ConstMatrix matrix() const {
    return tensor<T, 2>();
  }

  // The first element as a rank-0 map (for single-element tensors).
  template <typename T>
  typename TTypes<T>::Scalar scalar() {
    return typename TTypes<T>::Scalar(static_cast<T *>(data_));
  }
  template <typename T>
  typename TTypes<T>::ConstScalar scalar() const {
    return typename TTypes<T>::ConstScalar(static_cast<const T *>(data_));
  }

  // The shape as NDIMS sizes: trailing 1s pad a shorter shape, extra trailing dimensions fold into the last.
  template <int NDIMS, typename IndexType>
  Eigen::DSizes<IndexType, NDIMS> AsEigenDSizesWithPadding() const {
    Eigen::DSizes<IndexType, NDIMS> sizes;
    for (int d = 0; d < NDIMS; ++d) sizes[d] = 1;
    if constexpr (NDIMS > 0) {
      const ShapeVector dims = Dims();
      for (size_t d = 0; d < dims.size(); ++d) {
        const int slot = d < static_cast<size_t>(NDIMS) ? static_cast<int>(d) : NDIMS - 1;
        sizes[slot] *= static_cast<IndexType>(dims[d]);
      }
    }
    return sizes;
  }

  template <int NDIMS, typename IndexType = Eigen::DenseIndex>
  Eigen::DSizes<IndexType, NDIMS> AsEigenDSizes() const {
    return AsEigenDSizesWithPadding<NDIMS, IndexType>();
  }

 private:
  ShapeVector Dims() const { return tensor_ != nullptr ? tensor_->GetTensorShape()->GetDimSizes() : shape_; }
  Eigen::DenseIndex ElementCount() const {
    const ShapeVector dims = Dims();
    return static_cast<Eigen::DenseIndex>(
        std::accumulate(dims.begin(), dims.end(), static_cast<int64_t>(1), std::multiplies<int64_t>()));
  }

  Tensor *tensor_ = nullptr;
  ShapeVector shape_;
  void *data_ = nullptr;
};
}  // namespace aicpu

#endif  // AICPU_EIGENTENSOR_H
