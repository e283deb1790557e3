// For tests of helper processes: raises this process's soft limit on open
// files to the hard one, as `nubo serve` does at start, for the object's
// lifetime. A helper must get the usual limit back.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <string>

namespace nubo::jobs {

class RaisedFileLimitForTest {
 public:
  RaisedFileLimitForTest() {
    ok_ = getrlimit(RLIMIT_NOFILE, &was_) == 0;
    struct rlimit raised = was_;
    raised.rlim_cur = was_.rlim_max == RLIM_INFINITY ? 65536 : was_.rlim_max;
    ok_ = ok_ && setrlimit(RLIMIT_NOFILE, &raised) == 0;
    raised_ = raised.rlim_cur;
  }
  ~RaisedFileLimitForTest() { setrlimit(RLIMIT_NOFILE, &was_); }
  RaisedFileLimitForTest(const RaisedFileLimitForTest&) = delete;
  RaisedFileLimitForTest& operator=(const RaisedFileLimitForTest&) = delete;

  bool ok() const { return ok_; }
  // What `ulimit -Sn` in a helper should print: 1,024, or the hard limit
  // where that is lower (then nothing was raised).
  std::string HelperSees() const { return std::to_string(std::min<rlim_t>(raised_, 1024)); }

 private:
  struct rlimit was_ {};
  rlim_t raised_ = 0;
  bool ok_ = false;
};

}  // namespace nubo::jobs
