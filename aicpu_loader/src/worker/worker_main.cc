// npusim's simulated AI CPU: a separate process that runs AICPU kernels for aicpu_loader/worker.py.
//
// Usage: npusim_aicpu_worker FD [HOST_PID]   (FD: this end of a SOCK_SEQPACKET socketpair; HOST_PID: the process
//        that started this one, given when it did so from its main thread)
// The worker never outlives its host, even while a kernel hangs (it would spin on, re-parented to init): a thread
// waits for the host's end of the socket to close (the host died, or dropped the worker) and ends the process.
// With HOST_PID the kernel also kills the worker when the host dies (PR_SET_PDEATHSIG; only from the host's main
// thread, since the signal follows the death of the thread that started the worker, not of the process).
// Requests (little-endian; first u32 is the kind):
//   MAP  (2): u32 kind, u32 0, u64 shm_size, u64 log_size_offset, u64 log_offset, u64 log_capacity, + the
//             shared-memory fd passed with SCM_RIGHTS.  Maps it (replacing any earlier mapping).
//   CALL (1): u32 kind, u32 path_len, u64 request_offset, u64 request_size, path bytes, u32 n_guards,
//             n_guards x (u64 offset, u64 size_bytes).  The request lies in the shared memory; tensors are at
//             offsets into it.  dlopens the library once and calls RunCpuKernel.  The log size in the shared
//             memory is reset first.  Guard i is the zone right after output i: it is filled with a pattern before
//             the kernel runs and checked after; a kernel that wrote into it gets the reply DONE with runtime
//             status NPUSIM_RT_OUTPUT_OVERRUN and, as result, one GuardBreach record per damaged zone.
//   LIST (3): u32 kind, u32 path_len, path bytes.  Lists the op types the library registers.
//   EXIT (4): u32 kind.
// Replies: u32 kind, u32 kernel_status, u32 runtime_status, u32 result_size, u32 message_size, result, message.
// A library is loaded once per path; every CALL/LIST re-stats the path and answers STALE (6) when the file was
// replaced since (dlopen would keep serving the old code): Python then starts a fresh worker.
// A kernel that crashes takes this process down; Python notices the closed socket and reads the signal.
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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
#include <system_error>
#include <thread>
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
constexpr size_t kCallHeadBytes = 24;
constexpr size_t kGuardEntryBytes = 16;
constexpr size_t kMaxGuardBytes = 4096;  // aicpu_loader/plan.py keeps each zone well below this

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

// A zone of the shared memory right after an output's buffer, which no kernel may write.
struct Guard {
  uint64_t offset = 0;
  uint64_t size_bytes = 0;
};

// What the reply to a CALL whose kernel wrote into a guard zone carries as its result (little-endian, packed).
struct GuardBreach {
  uint32_t output_index;
  uint32_t reached_end;    // 1: the zone's last byte was written too (the write may reach further)
  uint64_t overrun_bytes;  // from the output's end to the last byte written in the zone
  uint64_t guard_bytes;    // the zone's size
};
static_assert(sizeof(GuardBreach) == 24, "GuardBreach is read by aicpu_loader/failures.py");

struct Worker {
  int fd = -1;
  SharedMemory shm;
  std::map<std::string, Library> libraries;
  std::vector<uint8_t> result = std::vector<uint8_t>(kResultBytes);
  std::vector<char> message = std::vector<char>(kMessageBytes);
  std::vector<Guard> guards;
  uint8_t guard_pattern[kMaxGuardBytes];
};

// Bytes no kernel is likely to write by accident: neither zeros nor a repeated small value.
void FillGuardPattern(uint8_t *pattern) {
  for (size_t i = 0; i < kMaxGuardBytes; ++i) pattern[i] = static_cast<uint8_t>(0xA5u ^ ((i * 0x3Bu) & 0xFFu));
}

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

// Reads the guard list that follows a CALL's path into w.guards; false with `error` set when malformed.
bool ReadGuards(Worker &w, const uint8_t *msg, size_t size, size_t pos, std::string &error) {
  w.guards.clear();
  if (pos + 4 > size) {
    error = "CALL guard list truncated";
    return false;
  }
  uint32_t count = Read<uint32_t>(msg + pos);
  pos += 4;
  if (count > (size - pos) / kGuardEntryBytes) {
    error = "CALL guard list truncated";
    return false;
  }
  for (uint32_t i = 0; i < count; ++i, pos += kGuardEntryBytes) {
    Guard guard{Read<uint64_t>(msg + pos), Read<uint64_t>(msg + pos + 8)};
    if (guard.size_bytes > kMaxGuardBytes || guard.offset > w.shm.size ||
        guard.size_bytes > w.shm.size - guard.offset) {
      error = "CALL guard zone " + std::to_string(i) + " is too large or outside the shared memory";
      return false;
    }
    w.guards.push_back(guard);
  }
  return true;
}

void ArmGuards(Worker &w) {
  for (const Guard &guard : w.guards) std::memcpy(w.shm.base + guard.offset, w.guard_pattern, guard.size_bytes);
}

// One GuardBreach per zone the kernel wrote into, in w.result; returns their total size in bytes.
uint32_t CheckGuards(Worker &w) {
  uint32_t used = 0;
  for (size_t i = 0; i < w.guards.size(); ++i) {
    const Guard &guard = w.guards[i];
    const uint8_t *zone = w.shm.base + guard.offset;
    if (std::memcmp(zone, w.guard_pattern, guard.size_bytes) == 0) continue;
    uint64_t last = guard.size_bytes;
    while (last > 0 && zone[last - 1] == w.guard_pattern[last - 1]) --last;
    GuardBreach breach{static_cast<uint32_t>(i), last == guard.size_bytes ? 1u : 0u, last, guard.size_bytes};
    if (used + sizeof(breach) > w.result.size()) break;
    std::memcpy(w.result.data() + used, &breach, sizeof(breach));
    used += sizeof(breach);
  }
  return used;
}

bool HandleCall(Worker &w, const uint8_t *msg, size_t size) {
  if (size < kCallHeadBytes) return ReplyText(w, kProtocolError, "CALL needs 24 bytes");
  uint32_t path_len = Read<uint32_t>(msg + 4);
  uint64_t request_offset = Read<uint64_t>(msg + 8);
  uint64_t request_size = Read<uint64_t>(msg + 16);
  if (kCallHeadBytes + static_cast<size_t>(path_len) > size) {
    return ReplyText(w, kProtocolError, "CALL path truncated");
  }
  if (w.shm.base == nullptr || request_offset > w.shm.size || request_size > w.shm.size - request_offset) {
    return ReplyText(w, kProtocolError, "CALL request lies outside the shared memory");
  }
  std::string error;
  if (!ReadGuards(w, msg, size, kCallHeadBytes + path_len, error)) return ReplyText(w, kProtocolError, error);
  *w.shm.log_size = 0;  // before anything can fail: a crash report must not show the previous call's log
  std::string path(reinterpret_cast<const char *>(msg + kCallHeadBytes), path_len);
  uint32_t kind = kDone;
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
  ArmGuards(w);
  uint32_t status = lib->run(&call);
  uint32_t breaches = CheckGuards(w);
  if (breaches != 0) {
    return Reply(w, kDone, status, NPUSIM_RT_OUTPUT_OVERRUN, w.result.data(), breaches, nullptr, 0);
  }
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

// Blocks until the host's end of the socket closes, then ends the whole process (kernel threads included).
void WatchHost(int fd) {
  pollfd host{fd, POLLRDHUP, 0};
  for (;;) {
    int ready = poll(&host, 1, -1);
    if (ready > 0 && (host.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0) _exit(0);
    if (ready < 0 && errno != EINTR) _exit(3);
  }
}

// Ties this process's life to the host's: parent-death signal plus, for the race of the host dying before the
// prctl, a check that the parent is still the host.  Returns false when the host is already gone.
bool FollowHost(const char *host_pid_text) {
  const pid_t host_pid = static_cast<pid_t>(std::atol(host_pid_text));
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return true;  // the socket watch still covers it
  return getppid() == host_pid;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s SOCKET_FD [HOST_PID]\n", argv[0]);
    return 2;
  }
  if (argc == 3 && !FollowHost(argv[2])) return 0;
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crashing kernel must not litter core files
  static Worker w;
  FillGuardPattern(w.guard_pattern);
  w.fd = std::atoi(argv[1]);
  try {
    std::thread(WatchHost, w.fd).detach();
  } catch (const std::system_error &) {  // no thread to spare: the parent-death signal (if any) still applies
  }
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
