// npusim AICPU compatibility header: same as cpu_tensor.h (kernels include it by this path too).
#include "../../cpu_tensor.h"
