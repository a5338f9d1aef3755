// npusim AICPU compatibility header: same as cpu_tensor_shape.h (kernels include it by this path too).
#include "../../cpu_tensor_shape.h"
