#pragma once

// A shared library opened on first use instead of linked. A linked library
// is mapped, relocated and symbol-resolved at every start, so each one a
// server does not need until some request asks costs resident memory from
// the first second (libcrypto alone ~1.5 MiB). Callers keep one static
// instance per library and one function pointer per symbol, typed by the
// library's own header, so a changed signature fails to compile.

#include <string>

namespace nubo::util {

class DynLib {
 public:
  // dlopen(soname) with RTLD_NOW | RTLD_LOCAL; `package` names the Debian
  // package that provides it, for the error a missing library reports.
  DynLib(const char* soname, const char* package);
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;

  // Sets `fn` to the symbol `name`; a missing symbol is remembered in error().
  template <typename Fn>
  void Load(Fn& fn, const char* name) {
    fn = reinterpret_cast<Fn>(Symbol(name));
  }

  bool ok() const { return error_.empty(); }
  // Why the library or one of its symbols could not be loaded; empty if ok.
  const std::string& error() const { return error_; }

 private:
  void* Symbol(const char* name);

  std::string soname_;
  void* handle_ = nullptr;
  std::string error_;
};

}  // namespace nubo::util
