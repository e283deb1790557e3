// The files domain may not include a protocol layer above it.
#include "files/files.h"
#include "dav/dav.h"
