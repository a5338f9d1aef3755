// npusim AICPU compatibility header: same as cpu_kernel_utils.h (kernels include it by this path too).
#include "../../cpu_kernel_utils.h"
