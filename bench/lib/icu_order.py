"""The listing order nubo promises, computed independently of nubo: ICU's
root collator with numeric ordering at secondary strength ("a2" < "A3" <
"a10"), called through ctypes. Benchmark gates compare the server's name
order against natural_key(); nothing here is shared with the server's code
but the ICU library itself."""
import ctypes
import glob

UCOL_NUMERIC_COLLATION = 7  # UColAttribute
UCOL_ON = 17                # UColAttributeValue
UCOL_SECONDARY = 1          # UCollationStrength


def _load():
    paths = sorted(glob.glob("/usr/lib/*/libicui18n.so.*[0-9]"))
    if not paths:
        raise SystemExit("libicui18n not found (apt-get install libicu-dev)")
    lib = ctypes.CDLL(paths[0])
    # ICU renames its C symbols per major version (ucol_open_72).
    for suffix in [""] + ["_%d" % v for v in range(50, 100)]:
        if hasattr(lib, "ucol_open" + suffix):
            break
    else:
        raise SystemExit("no ucol_open in %s" % paths[0])

    def fn(name, restype, *argtypes):
        f = getattr(lib, name + suffix)
        f.restype, f.argtypes = restype, list(argtypes)
        return f

    err = ctypes.c_int(0)
    ucol_open = fn("ucol_open", ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int))
    coll = ucol_open(b"", ctypes.byref(err))
    if err.value > 0 or not coll:
        raise SystemExit("ucol_open failed: %d" % err.value)
    fn("ucol_setAttribute", None, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
       ctypes.POINTER(ctypes.c_int))(coll, UCOL_NUMERIC_COLLATION, UCOL_ON, ctypes.byref(err))
    fn("ucol_setStrength", None, ctypes.c_void_p, ctypes.c_int)(coll, UCOL_SECONDARY)
    get = fn("ucol_getSortKey", ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32,
             ctypes.c_void_p, ctypes.c_int32)
    return coll, get


_COLL, _GET = None, None


def natural_key(name):
    """Bytes that order like the server's name order."""
    global _COLL, _GET
    if _COLL is None:
        _COLL, _GET = _load()
    u16 = name.encode("utf-16-le")
    src = ctypes.create_string_buffer(u16, len(u16))
    out = ctypes.create_string_buffer(256)
    n = _GET(_COLL, src, len(u16) // 2, out, len(out))
    if n > len(out):
        out = ctypes.create_string_buffer(n)
        n = _GET(_COLL, src, len(u16) // 2, out, len(out))
    return out.raw[:n]


if __name__ == "__main__":
    names = ["a10", "A3", "a2", "report-10", "Report-2", "b"]
    print(sorted(names, key=natural_key))
