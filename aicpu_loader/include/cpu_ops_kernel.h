// npusim AICPU compatibility header: cpu_ops_kernel.h, the name MindSpore's and canndev's kernel headers include
// for the CpuKernel base class and REGISTER_CPU_KERNEL.  Same declarations as cpu_kernel.h.
#include "cpu_kernel.h"
