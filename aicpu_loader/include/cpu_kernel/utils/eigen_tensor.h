// npusim AICPU compatibility header: same as utils/eigen_tensor.h (kernels include it by this path too).
#include "../../utils/eigen_tensor.h"
