#include "feeddiff/failpoint.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace feeddiff {

bool failpoints_built() {
#if FEEDDIFF_FAILPOINTS
  return true;
#else
  return false;
#endif
}

void failpoint(Failpoint step) {
#if FEEDDIFF_FAILPOINTS
  const std::string_view name = failpoint_name(step);
  if (const char* trace = std::getenv("FEEDDIFF_FAILPOINT_TRACE"); trace && *trace) {
    // One write(2) of the whole line to a file opened for appending: nothing is buffered
    // in this process, so a step traced is a step reached, even if the next one kills it.
    const int fd = ::open(trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const std::string line = std::string(name) + "\n";
      [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
      ::close(fd);
    }
  }
  if (const char* wanted = std::getenv("FEEDDIFF_FAILPOINT"); wanted && name == wanted)
    ::kill(::getpid(), SIGKILL);  // as a crash would: no destructor, no buffer flushed
#else
  (void)step;
#endif
}

}  // namespace feeddiff
