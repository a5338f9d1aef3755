/**
 * MindSpore's logging and check macros: `MS_LOG(DEBUG|INFO|WARNING|ERROR|EXCEPTION) << ...`,
 * `MS_EXCEPTION(ValueError) << ...`, `MS_EXCEPTION_IF_NULL(p)`, `MS_EXCEPTION_IF_CHECK_FAIL(cond, msg)`.
 *
 * DEBUG and INFO are dropped, WARNING and ERROR go to stderr (as MindSpore's default log level prints them),
 * EXCEPTION raises npusim's ExtensionRuntimeError (a RuntimeError) with the message, and MS_EXCEPTION(ValueError /
 * TypeError) raises the matching npusim error.
 */
#ifndef NPUSIM_EXT_LOG_H_
#define NPUSIM_EXT_LOG_H_

#include <iostream>
#include <sstream>
#include <string>

#include "npusim_ext/py_bridge.h"

namespace mindspore {
enum ExceptionType { NoExceptionType = 0, UnknownError, ArgumentError, NotSupportError, NotExistsError,
                     DeviceProcessError, AbortedError, IndexError, ValueError, TypeError, KeyError, AttributeError,
                     NameError, AssertionError, BaseException, KeyboardInterrupt, Exception, StopIteration,
                     OverflowError, ZeroDivisionError, EnvironmentError, IOError, OSError, ImportError,
                     MemoryError, UnboundLocalError, RuntimeError, NotImplementedError };

namespace npusim_ext {
/// The text of one log statement.
class LogStream {
 public:
  template <typename T>
  LogStream &operator<<(const T &value) {
    stream_ << value;
    return *this;
  }
  LogStream &operator<<(std::ostream &(*manip)(std::ostream &)) {
    stream_ << manip;
    return *this;
  }
  std::string str() const { return stream_.str(); }

 private:
  std::ostringstream stream_;
};

/// Where a log statement goes: `writer ^ stream` runs after every `<<` of the statement.
class LogWriter {
 public:
  LogWriter(const char *level, const char *file, int line) : level_(level), file_(file), line_(line) {}
  explicit LogWriter(ExceptionType type) : level_("EXCEPTION"), file_(""), line_(0), type_(type) {}

  void operator^(const LogStream &stream) const {
    const std::string level(level_);
    if (level == "EXCEPTION") {
      ErrorKind kind = type_ == ValueError || type_ == IndexError || type_ == KeyError ? ErrorKind::kValue
                       : type_ == TypeError                                            ? ErrorKind::kType
                       : type_ == NotSupportError || type_ == NotImplementedError      ? ErrorKind::kUnsupported
                                                                                        : ErrorKind::kRuntime;
      Raise(kind, stream.str());
    }
    if (level == "WARNING" || level == "ERROR") {
      std::cerr << "[" << level << "] " << file_ << ":" << line_ << " " << stream.str() << std::endl;
    }
  }

 private:
  const char *level_;
  const char *file_;
  int line_;
  ExceptionType type_ = RuntimeError;
};
}  // namespace npusim_ext
}  // namespace mindspore

#define MS_LOG(level) ::mindspore::npusim_ext::LogWriter(#level, __FILE__, __LINE__) ^ ::mindspore::npusim_ext::LogStream()
#define MS_VLOG(level) MS_LOG(DEBUG)
#define MS_EXCEPTION(type) ::mindspore::npusim_ext::LogWriter(::mindspore::type) ^ ::mindspore::npusim_ext::LogStream()
#define MS_EXCEPTION_IF_NULL(ptr)                                          \
  do {                                                                     \
    if ((ptr) == nullptr) {                                                \
      MS_LOG(EXCEPTION) << ": The pointer[" << #ptr << "] is null.";       \
    }                                                                      \
  } while (false)
#define MS_EXCEPTION_IF_CHECK_FAIL(condition, error_info)                  \
  do {                                                                     \
    if (!(condition)) {                                                    \
      MS_LOG(EXCEPTION) << "Failure info [" << (error_info) << "].";       \
    }                                                                      \
  } while (false)

#endif  // NPUSIM_EXT_LOG_H_
