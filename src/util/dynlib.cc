#include "util/dynlib.h"

#include <dlfcn.h>

namespace nubo::util {

DynLib::DynLib(const char* soname, const char* package) : soname_(soname) {
  // RTLD_LOCAL keeps the library's symbols out of the global scope, so
  // nothing else binds to them by accident.
  handle_ = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    error_ = soname_ + " could not be loaded (Debian package " + package +
             "): " + (why ? why : "not found");
  }
}

void* DynLib::Symbol(const char* name) {
  if (!handle_) return nullptr;
  void* p = dlsym(handle_, name);
  if (!p && error_.empty()) error_ = soname_ + " lacks " + name;
  return p;
}

}  // namespace nubo::util
