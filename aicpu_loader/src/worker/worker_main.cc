// npusim's simulated AI CPU: a separate process that runs AICPU kernels for aicpu_loader/worker.py.
//
// Usage: npusim_aicpu_worker FD   (FD: this end of a SOCK_SEQPACKET socketpair)
// Requests (little-endian; first u32 is the kind):
//   MAP  (2): u32 kind, u32 0, u64 shm_size, u64 log_size_offset, u64 log_offset, u64 log_capacity, + the
//             shared-memory fd passed with SCM_RIGHTS.  Maps it (replacing any earlier mapping).
//   CALL (1): u32 kind, u32 path_len, u64 request_offset, u64 request_size, path bytes.  The request lies in the
//             shared memory; tensors are at offsets into it.  dlopens the library once and calls RunCpuKernel.
//             The log size in the shared memory is reset first.
//   LIST (3): u32 kind, u32 path_len, path bytes.  Lists the op types the library registers.
//   EXIT (4): u32 kind.
// Replies: u32 kind, u32 kernel_status, u32 runtime_status, u32 result_size, u32 message_size, result, message.
// A library is loaded once per path; every CALL/LIST re-stats the path and answers STALE (6) when the file was
// replaced since (dlopen would keep serving the old code): Python then starts a fresh worker.
// A kernel that crashes takes this process down; Python notices the closed socket and reads the signal.
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "npusim_aicpu/call_abi.h"

namespace {

enum RequestKind : uint32_t { kCall = 1, kMap = 2, kList = 3, kExit = 4 };
enum ReplyKind : uint32_t {
  kDone = 0, kLoadError = 1, kNoEntry = 2, kProtocolError = 3, kListed = 4, kMapped = 5, kStale = 6
};

constexpr size_t kRequestBytes = 64 * 1024;
constexpr size_t kResultBytes = 256 * 1024;
constexpr size_t kMessageBytes = 32 * 1024;

using RunFn = uint32_t (*)(void *);
using ListFn = uint64_t (*)(char *, uint64_t);

// The identity of a library file: a rebuild replaces the file (new inode) or rewrites it (new mtime/size).
struct FileSignature {
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t mtime_s = 0;
  int64_t mtime_ns = 0;
  off_t size = 0;

  bool operator==(const FileSignature &o) const {
    return dev == o.dev && ino == o.ino && mtime_s == o.mtime_s && mtime_ns == o.mtime_ns && size == o.size;
  }
};

bool Signature(const std::string &path, FileSignature &out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  out = FileSignature{st.st_dev, st.st_ino, static_cast<int64_t>(st.st_mtim.tv_sec),
                      static_cast<int64_t>(st.st_mtim.tv_nsec), st.st_size};
  return true;
}

struct Library {
  void *handle = nullptr;
  RunFn run = nullptr;
  ListFn list = nullptr;
  FileSignature signature;  // of the file when it was loaded (taken before dlopen)
};

struct SharedMemory {
  uint8_t *base = nullptr;
  uint64_t size = 0;
  uint64_t *log_size = nullptr;
  char *log_text = nullptr;
  uint64_t log_capacity = 0;
};

struct Worker {
  int fd = -1;
  SharedMemory shm;
  std::map<std::string, Library> libraries;
  std::vector<uint8_t> result = std::vector<uint8_t>(kResultBytes);
  std::vector<char> message = std::vector<char>(kMessageBytes);
};

template <typename T>
T Read(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// One datagram gathered from the header, the result and the message (no copy into a staging buffer).
bool Reply(Worker &w, uint32_t kind, uint32_t kernel_status, uint32_t runtime_status, const uint8_t *result,
           uint32_t result_size, const char *message, size_t message_size) {
  uint32_t head[5] = {kind, kernel_status, runtime_status, result_size, static_cast<uint32_t>(message_size)};
  iovec parts[3] = {{head, sizeof(head)}, {const_cast<uint8_t *>(result), result_size},
                    {const_cast<char *>(message), message_size}};
  msghdr msg{};
  msg.msg_iov = parts;
  msg.msg_iovlen = 3;
  ssize_t want = static_cast<ssize_t>(sizeof(head) + result_size + message_size);
  ssize_t sent;
  do {
    sent = sendmsg(w.fd, &msg, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent == want;
}

bool ReplyText(Worker &w, uint32_t kind, const std::string &message) {
  return Reply(w, kind, 0, 0, nullptr, 0, message.data(), message.size());
}

// Loads `path` once (and checks on every later use that the file is still the one loaded); on failure returns
// nullptr and sets `kind`/`error` (kStale: the file was replaced; this process must not serve it any more).
const Library *Load(Worker &w, const std::string &path, uint32_t &kind, std::string &error) {
  FileSignature now;
  bool stat_ok = Signature(path, now);
  auto it = w.libraries.find(path);
  if (it != w.libraries.end()) {
    if (stat_ok && it->second.signature == now) return &it->second;
    kind = stat_ok ? kStale : kLoadError;
    error = stat_ok ? "the library file was replaced since this worker loaded it"
                    : std::string("the library file is gone: ") + strerror(errno);
    return nullptr;
  }
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char *why = dlerror();
    kind = kLoadError;
    error = why ? why : "dlopen failed";
    return nullptr;
  }
  Library lib;
  lib.handle = handle;
  lib.signature = now;
  lib.run = reinterpret_cast<RunFn>(dlsym(handle, "RunCpuKernel"));
  lib.list = reinterpret_cast<ListFn>(dlsym(handle, "NpusimAicpuListKernels"));
  if (lib.run == nullptr || lib.list == nullptr) {
    kind = kNoEntry;
    error = "the library has no RunCpuKernel/NpusimAicpuListKernels entry: link it with npusim's AICPU runtime "
            "(npusim aicpu build, or the flags of npusim aicpu ldflags)";
    return nullptr;
  }
  return &w.libraries.emplace(path, lib).first->second;
}

bool HandleMap(Worker &w, const uint8_t *msg, size_t size, int passed_fd) {
  if (size < 40 || passed_fd < 0) {
    if (passed_fd >= 0) close(passed_fd);
    return ReplyText(w, kProtocolError, "MAP needs 40 bytes and a file descriptor");
  }
  uint64_t shm_size = Read<uint64_t>(msg + 8);
  uint64_t log_size_offset = Read<uint64_t>(msg + 16);
  uint64_t log_offset = Read<uint64_t>(msg + 24);
  uint64_t log_capacity = Read<uint64_t>(msg + 32);
  void *base = mmap(nullptr, shm_size, PROT_READ | PROT_WRITE, MAP_SHARED, passed_fd, 0);
  close(passed_fd);
  if (base == MAP_FAILED) return ReplyText(w, kProtocolError, std::string("mmap failed: ") + strerror(errno));
  if (log_size_offset + 8 > shm_size || log_offset + log_capacity > shm_size) {
    munmap(base, shm_size);
    return ReplyText(w, kProtocolError, "log area outside the shared memory");
  }
  if (w.shm.base != nullptr) munmap(w.shm.base, w.shm.size);
  w.shm.base = static_cast<uint8_t *>(base);
  w.shm.size = shm_size;
  w.shm.log_size = reinterpret_cast<uint64_t *>(w.shm.base + log_size_offset);
  w.shm.log_text = reinterpret_cast<char *>(w.shm.base + log_offset);
  w.shm.log_capacity = log_capacity;
  return ReplyText(w, kMapped, "");
}

bool HandleCall(Worker &w, const uint8_t *msg, size_t size) {
  if (size < 24) return ReplyText(w, kProtocolError, "CALL needs 24 bytes");
  uint32_t path_len = Read<uint32_t>(msg + 4);
  uint64_t request_offset = Read<uint64_t>(msg + 8);
  uint64_t request_size = Read<uint64_t>(msg + 16);
  if (24 + static_cast<size_t>(path_len) > size) return ReplyText(w, kProtocolError, "CALL path truncated");
  if (w.shm.base == nullptr || request_offset > w.shm.size || request_size > w.shm.size - request_offset) {
    return ReplyText(w, kProtocolError, "CALL request lies outside the shared memory");
  }
  *w.shm.log_size = 0;  // before anything can fail: a crash report must not show the previous call's log
  std::string path(reinterpret_cast<const char *>(msg + 24), path_len);
  uint32_t kind = kDone;
  std::string error;
  const Library *lib = Load(w, path, kind, error);
  if (lib == nullptr) return ReplyText(w, kind, error);
  w.message[0] = '\0';
  NpusimAicpuCall call{};
  call.abi_version = NPUSIM_AICPU_ABI_VERSION;
  call.request = w.shm.base + request_offset;
  call.request_size = request_size;
  call.arena = w.shm.base;
  call.arena_size = w.shm.size;
  call.log_text = w.shm.log_text;
  call.log_capacity = w.shm.log_capacity;
  call.log_size = w.shm.log_size;
  call.result = w.result.data();
  call.result_capacity = w.result.size();
  call.message = w.message.data();
  call.message_capacity = w.message.size();
  uint32_t status = lib->run(&call);
  size_t result_size = std::min<size_t>(call.result_size, w.result.size());
  return Reply(w, kDone, status, call.runtime_status, w.result.data(), static_cast<uint32_t>(result_size),
               w.message.data(), strnlen(w.message.data(), w.message.size()));
}

bool HandleList(Worker &w, const uint8_t *msg, size_t size) {
  if (size < 8) return ReplyText(w, kProtocolError, "LIST needs 8 bytes");
  uint32_t path_len = Read<uint32_t>(msg + 4);
  if (8 + static_cast<size_t>(path_len) > size) return ReplyText(w, kProtocolError, "LIST path truncated");
  std::string path(reinterpret_cast<const char *>(msg + 8), path_len);
  uint32_t kind = kDone;
  std::string error;
  const Library *lib = Load(w, path, kind, error);
  if (lib == nullptr) return ReplyText(w, kind, error);
  std::vector<char> text(lib->list(nullptr, 0));
  lib->list(text.data(), text.size());
  return ReplyText(w, kListed, std::string(text.data()));
}

// Receives one message (and a passed fd, if any); returns its size, 0 on EOF, -1 on error.
ssize_t Receive(int fd, std::vector<uint8_t> &buffer, int &passed_fd) {
  passed_fd = -1;
  iovec iov{buffer.data(), buffer.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t got;
  do {
    got = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return got;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&passed_fd, CMSG_DATA(c), sizeof(int));
  }
  if (msg.msg_flags & MSG_TRUNC) return -1;
  return got;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SOCKET_FD\n", argv[0]);
    return 2;
  }
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crashing kernel must not litter core files
  Worker w;
  w.fd = std::atoi(argv[1]);
  std::vector<uint8_t> buffer(kRequestBytes);
  for (;;) {
    int passed_fd = -1;
    ssize_t size = Receive(w.fd, buffer, passed_fd);
    if (size <= 0) return size == 0 ? 0 : 3;  // EOF: the Python side went away
    if (size < 4) return 3;
    uint32_t kind = Read<uint32_t>(buffer.data());
    bool ok;
    switch (kind) {
      case kCall: ok = HandleCall(w, buffer.data(), static_cast<size_t>(size)); break;
      case kMap: ok = HandleMap(w, buffer.data(), static_cast<size_t>(size), passed_fd); break;
      case kList: ok = HandleList(w, buffer.data(), static_cast<size_t>(size)); break;
      case kExit: return 0;
      default: ok = ReplyText(w, kProtocolError, "unknown request kind " + std::to_string(kind)); break;
    }
    if (!ok) return 3;
  }
}
