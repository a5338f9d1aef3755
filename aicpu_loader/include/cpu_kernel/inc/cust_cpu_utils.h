// npusim AICPU compatibility header: same as cust_cpu_utils.h (kernels include it by this path too).
#include "../../cust_cpu_utils.h"
