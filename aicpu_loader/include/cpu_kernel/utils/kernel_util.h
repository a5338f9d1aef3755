// npusim AICPU compatibility header: same as utils/kernel_util.h (kernels include it by this path too).
#include "../../utils/kernel_util.h"
