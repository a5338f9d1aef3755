// Turning a crash inside user kernel code into an error instead of the end of the process.
//
// While a guarded call runs on a thread, SIGSEGV / SIGBUS / SIGFPE / SIGILL / SIGABRT raised by that thread jump
// back to the guard (siglongjmp), which reports the signal.  Signals on threads that are not inside a guarded call
// go to whatever handler was installed before ours (Python's faulthandler, or the default action), so crashes
// elsewhere behave exactly as without npusim.  Each guarded thread gets an alternate signal stack, so a stack
// overflow in the kernel is caught as well.  Objects the kernel had allocated when it crashed are leaked; the
// caller's message says the kernel may have left memory it was writing in an inconsistent state.
//
// Crashes on threads the kernel started itself cannot be unwound here (see npusim/aot/threads.py: such kernels
// run in the aot worker process).  Before such a crash is passed on, the handler leaves a note: in the worker,
// into the shared crash-note buffer the host reads after the worker died; in the host, a line on stderr naming
// the kernel that was running and how to isolate it.  An uncaught C++ exception (std::terminate) leaves a note
// with its what() the same way.
#ifndef NPUSIM_AOT_FAULT_GUARD_H_
#define NPUSIM_AOT_FAULT_GUARD_H_

#include <unistd.h>

#include <atomic>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>

namespace npusim_aot {

constexpr int kGuardedSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

struct GuardSlot {
  sigjmp_buf env;
  volatile sig_atomic_t active = 0;
  volatile sig_atomic_t signo = 0;
  bool has_alt_stack = false;
};

inline GuardSlot &CurrentGuard() {
  static thread_local GuardSlot slot;
  return slot;
}

inline struct sigaction *PreviousActions() {
  static struct sigaction previous[NSIG];
  return previous;
}

// Where notes about crashes that cannot be unwound go (all async-signal-safe).
struct CrashNotes {
  char *buffer = nullptr;  // the worker's shared note (NUL-terminated text), or null in the host
  size_t size = 0;
  std::atomic<const char *> running{nullptr};  // label of the kernel call in progress ("op 'x': F in 'lib'")
  std::atomic<int> calls_in_progress{0};
};

inline CrashNotes &Notes() {
  static CrashNotes notes;
  return notes;
}

// A tiny async-signal-safe text builder over a fixed buffer.
class NoteText {
 public:
  NoteText(char *buffer, size_t size) : buffer_(buffer), size_(size) {}
  NoteText &Add(const char *text) {
    for (; text != nullptr && *text != '\0' && used_ + 1 < size_; ++text) buffer_[used_++] = *text;
    buffer_[used_] = '\0';
    return *this;
  }
  NoteText &AddInt(long value) {
    char digits[24];
    int count = 0;
    unsigned long magnitude = value < 0 ? 0UL - static_cast<unsigned long>(value) : static_cast<unsigned long>(value);
    do {
      digits[count++] = static_cast<char>('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude != 0 && count < 23);
    if (value < 0) Add("-");
    char text[24];
    for (int i = 0; i < count; ++i) text[i] = digits[count - 1 - i];
    text[count] = '\0';
    return Add(text);
  }
  NoteText &AddHex(uintptr_t value) {
    char text[2 + 2 * sizeof(uintptr_t) + 1] = "0x";
    int count = 2;
    bool started = false;
    for (int shift = static_cast<int>(8 * sizeof(uintptr_t)) - 4; shift >= 0; shift -= 4) {
      unsigned digit = static_cast<unsigned>((value >> shift) & 0xF);
      if (digit == 0 && !started && shift != 0) continue;
      started = true;
      text[count++] = "0123456789abcdef"[digit];
    }
    text[count] = '\0';
    return Add(text);
  }
  size_t used() const { return used_; }

 private:
  char *buffer_;
  size_t size_;
  size_t used_ = 0;
};

// A crash on a thread that is not inside a guarded call: note it before the signal takes its usual course.
inline void NoteUnguardedCrash(int signo, const siginfo_t *info) {
  CrashNotes &notes = Notes();
  const bool fault = info != nullptr && info->si_code > 0 && signo != SIGABRT;
  if (notes.buffer != nullptr) {
    if (notes.buffer[0] != '\0') return;  // std::terminate already explained this abort
    NoteText note(notes.buffer, notes.size);
    note.Add("signal ").AddInt(signo).Add(" on a thread the kernel started");
    if (fault) note.Add(" (fault address ").AddHex(reinterpret_cast<uintptr_t>(info->si_addr)).Add(")");
    return;
  }
  const char *running = notes.running.load();
  if (notes.calls_in_progress.load() <= 0 || running == nullptr) return;
  char line[512];
  NoteText text(line, sizeof(line));
  text.Add("npusim: the aot kernel of Custom ").Add(running).Add(" crashed with signal ").AddInt(signo)
      .Add(" on a thread it started, which npusim cannot recover from in-process; set NPUSIM_AOT_ISOLATION=always "
           "to run aot kernels in a separate process\n");
  ssize_t ignored = write(STDERR_FILENO, line, text.used());
  (void)ignored;
}

extern "C" inline void NpusimFaultHandler(int signo, siginfo_t *info, void *) {
  GuardSlot &slot = CurrentGuard();
  if (slot.active) {
    slot.active = 0;
    slot.signo = signo;
    siglongjmp(slot.env, 1);
  }
  NoteUnguardedCrash(signo, info);
  // Not a guarded call: hand the signal to the handler that was there before us.  A synchronous fault re-executes
  // the faulting instruction on return and lands there; a sent signal (raise/kill) is re-raised.
  sigaction(signo, &PreviousActions()[signo], nullptr);
  if (info == nullptr || info->si_code <= 0 || signo == SIGABRT) raise(signo);
}

inline void InstallFaultHandlers() {
  static std::once_flag once;
  std::call_once(once, []() {
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_sigaction = NpusimFaultHandler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (int signo : kGuardedSignals) sigaction(signo, &action, &PreviousActions()[signo]);
  });
}

// Gives the calling thread an alternate signal stack (once per thread), so stack overflows are caught too.
inline void EnsureAltStack(GuardSlot &slot) {
  if (slot.has_alt_stack) return;
  stack_t current;
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) {
    slot.has_alt_stack = true;  // the thread already has one (e.g. installed by faulthandler)
    return;
  }
  const size_t size = 64 * 1024;
  void *memory = std::malloc(size);  // lives as long as the thread; never freed on purpose
  if (memory == nullptr) return;
  stack_t stack;
  stack.ss_sp = memory;
  stack.ss_size = size;
  stack.ss_flags = 0;
  slot.has_alt_stack = sigaltstack(&stack, nullptr) == 0;
}

// The worker's side of crash notes: `buffer` (shared with the host) receives the note, and std::terminate (an
// exception escaping a kernel thread) writes the exception's what() into it before aborting as usual.
inline void RegisterCrashNote(char *buffer, size_t size) {
  Notes().buffer = buffer;
  Notes().size = size;
  if (size != 0) buffer[0] = '\0';
  static std::terminate_handler previous = std::set_terminate([]() {
    CrashNotes &notes = Notes();
    if (notes.buffer != nullptr && notes.buffer[0] == '\0') {
      NoteText note(notes.buffer, notes.size);
      std::exception_ptr escaped = std::current_exception();
      try {
        if (escaped) std::rethrow_exception(escaped);
        note.Add("std::terminate was called on a thread the kernel started");
      } catch (const std::exception &error) {
        note.Add("a C++ exception escaped a thread the kernel started: ").Add(error.what());
      } catch (...) {
        note.Add("a C++ exception that is not a std::exception escaped a thread the kernel started");
      }
    }
    if (previous != nullptr) previous();
    std::abort();
  });
}

// Marks a kernel call in progress for the host's stderr note (`label` must outlive the call).
class RunningCall {
 public:
  explicit RunningCall(const char *label) {
    Notes().running.store(label);
    Notes().calls_in_progress.fetch_add(1);
  }
  ~RunningCall() { Notes().calls_in_progress.fetch_sub(1); }
  RunningCall(const RunningCall &) = delete;
  RunningCall &operator=(const RunningCall &) = delete;
};

}  // namespace npusim_aot

#endif  // NPUSIM_AOT_FAULT_GUARD_H_
