// Compiled with nubo_meta's include directories by the test command: a
// layer may include the layers below it.
#include "meta/meta_store.h"
#include "util/status.h"
