// Turning a crash inside user kernel code into an error instead of the end of the process.
//
// While a guarded call runs on a thread, SIGSEGV / SIGBUS / SIGFPE / SIGILL / SIGABRT raised by that thread jump
// back to the guard (siglongjmp), which reports the signal.  Signals on threads that are not inside a guarded call
// go to whatever handler was installed before ours (Python's faulthandler, or the default action), so crashes
// elsewhere behave exactly as without npusim.  Each guarded thread gets an alternate signal stack, so a stack
// overflow in the kernel is caught as well.  Objects the kernel had allocated when it crashed are leaked; the
// caller's message says the kernel may have left memory it was writing in an inconsistent state.
#ifndef NPUSIM_AOT_FAULT_GUARD_H_
#define NPUSIM_AOT_FAULT_GUARD_H_

#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <cstring>
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

extern "C" inline void NpusimFaultHandler(int signo, siginfo_t *info, void *) {
  GuardSlot &slot = CurrentGuard();
  if (slot.active) {
    slot.active = 0;
    slot.signo = signo;
    siglongjmp(slot.env, 1);
  }
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

}  // namespace npusim_aot

#endif  // NPUSIM_AOT_FAULT_GUARD_H_
