// The C ABI between npusim's AI CPU worker and a kernel library's RunCpuKernel (npusim's own, not CANN's).
//
// The worker passes RunCpuKernel a pointer to NpusimAicpuCall.  `request` is the serialized call (op type,
// tensors as offsets into `arena`, attributes) written by aicpu_loader/protocol.py; the runtime linked into the
// library decodes it, runs the kernel, appends log lines to `log_text`, and writes the final output
// descriptions to `result`.  Everything is little-endian.
//
// request  := "NPK1" u32 n_inputs u32 n_outputs u32 n_attrs str op_type tensor[n_inputs + n_outputs] attr[n_attrs]
// str      := u32 length, bytes
// tensor   := i32 dtype  i32 format  u32 flags(bit0: unknown rank)  u32 rank  u64 offset  u64 size_bytes
//             i64 dims[rank]
// attr     := str name  u32 kind  payload     (kind: NpusimAicpuAttrKind; lists are u32 count + items;
//             int i64, float f32, bool u8, str str, dtype i32, list-list-int u32 count + (u32 n + i64[n]))
// result   := per output: i32 dtype  u32 rank  u64 size_bytes  i64 dims[rank]
#ifndef NPUSIM_AICPU_CALL_ABI_H
#define NPUSIM_AICPU_CALL_ABI_H

#include <stdint.h>

#define NPUSIM_AICPU_ABI_VERSION 1u
#define NPUSIM_AICPU_REQUEST_MAGIC "NPK1"

#ifdef __cplusplus
extern "C" {
#endif

enum NpusimAicpuAttrKind {
  NPUSIM_ATTR_INT = 1,
  NPUSIM_ATTR_FLOAT = 2,
  NPUSIM_ATTR_BOOL = 3,
  NPUSIM_ATTR_STR = 4,
  NPUSIM_ATTR_DTYPE = 5,
  NPUSIM_ATTR_LIST_INT = 11,
  NPUSIM_ATTR_LIST_FLOAT = 12,
  NPUSIM_ATTR_LIST_BOOL = 13,
  NPUSIM_ATTR_LIST_STR = 14,
  NPUSIM_ATTR_LIST_DTYPE = 15,
  NPUSIM_ATTR_LIST_LIST_INT = 21,
};

// Failures of the runtime itself (the kernel's own status is RunCpuKernel's return value).
enum NpusimAicpuRuntimeStatus {
  NPUSIM_RT_OK = 0,
  NPUSIM_RT_BAD_REQUEST = 1,        // the request could not be decoded
  NPUSIM_RT_OP_NOT_FOUND = 2,       // message: the op type, then the registered op types
  NPUSIM_RT_OUTPUT_OVERFLOW = 3,    // an output's final shape needs more bytes than its buffer holds
  NPUSIM_RT_OUTPUT_UNSET = 4,       // a dynamic output's shape still has unknown dimensions after Compute
  NPUSIM_RT_CXX_EXCEPTION = 5,      // Compute threw; message: what()
  NPUSIM_RT_ABI_MISMATCH = 6,       // the library was built against another version of this ABI
  NPUSIM_RT_KERNEL_CREATE_FAILED = 7,
  NPUSIM_RT_OUTPUT_OVERRUN = 8,     // set by the worker: the kernel wrote into the guard zone after an output
};

typedef struct NpusimAicpuCall {
  uint32_t abi_version;      // in: NPUSIM_AICPU_ABI_VERSION
  uint32_t runtime_status;   // out: NpusimAicpuRuntimeStatus
  const uint8_t *request;    // in
  uint64_t request_size;
  uint8_t *arena;            // in: base that tensor offsets are relative to
  uint64_t arena_size;
  char *log_text;            // in/out: the call's log lines are appended here
  uint64_t log_capacity;
  uint64_t *log_size;
  uint8_t *result;           // out
  uint64_t result_capacity;
  uint64_t result_size;
  char *message;             // out: NUL-terminated explanation of a runtime_status
  uint64_t message_capacity;
} NpusimAicpuCall;

typedef struct BlkDimInfo {
  uint32_t blockNum;
  uint32_t blockId;
} BlkDimInfo;

// Entry points every kernel library gets from the runtime archive.
uint32_t RunCpuKernel(void *param);
uint32_t RunCpuKernelWithBlock(void *param, BlkDimInfo *block_info);
// Writes the registered op types, newline-separated and NUL-terminated, into buf; returns the bytes needed.
uint64_t NpusimAicpuListKernels(char *buf, uint64_t capacity);
uint32_t NpusimAicpuAbiVersion(void);

#ifdef __cplusplus
}
#endif
#endif  // NPUSIM_AICPU_CALL_ABI_H
