// Compiled with nubo_meta's include directories by the test command: the
// metadata layer may not include the HTTP layer above it, so this must
// not compile ("http/request.h" is not on meta's include path).
#include "meta/meta_store.h"
#include "http/request.h"
