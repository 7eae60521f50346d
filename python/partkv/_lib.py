"""Loads libpartkv's C API with cffi in ABI mode (no compiler needed).

The declarations are read from the C header itself: the text between the lines containing
"cdef: begin" and "cdef: end" in partkv/c.h, without its preprocessor lines, followed by the same
section of each header of the C API's other parts that partkv/c.h includes
(``#include "partkv/c_copy.h"``, read from c.h's directory). Where the library and the header are
found, first match wins:

1. the environment variables PARTKV_LIBRARY and PARTKV_C_HEADER (CTest sets both);
2. ``partkv/_paths.py``, written when the package is installed by ``cmake --install`` with the
   installed library's and header's absolute paths;
3. ``ctypes.util.find_library("partkv")``, and the header at ``<libdir>/../include/partkv/c.h``.
"""

import ctypes.util
import os
import re

import cffi

__all__ = ["ffi", "lib", "LIBRARY_PATH", "HEADER_PATH", "UNIX_EPOCH_TICKS", "MAX_TICKS"]

# The header's #define constants (cdef takes no "LL" suffixes, so they are restated here).
UNIX_EPOCH_TICKS = 621355968000000000
MAX_TICKS = 3155378975999999999

_BEGIN = "cdef: begin"
_END = "cdef: end"
_keep_loaded = []


# A header of the C API's other parts, as partkv/c.h includes it.
_PART = re.compile(r'^\s*#\s*include\s+"partkv/(c_[a-z0-9_]+\.h)"')


def _section(header_path):
    """The declarations of `header_path` between the cdef markers ('#' lines dropped), and the
    headers of other parts it includes."""
    with open(header_path, encoding="utf-8") as f:
        text = f.read()
    lines = []
    inside = False
    done = False
    parts = []
    for line in text.splitlines():
        match = _PART.match(line)
        if match:
            parts.append(match.group(1))
        if done:
            continue
        if not inside:
            if _BEGIN in line:
                inside = True
            continue
        if _END in line:
            done = True
            continue
        if line.lstrip().startswith("#"):
            continue
        lines.append(line)
    if not done:
        raise ImportError(
            "partkv: %s has no '%s' ... '%s' section" % (header_path, _BEGIN, _END))
    return lines, parts


def read_cdef(header_path):
    """Return the C declarations of `header_path` between the cdef markers, '#' lines dropped,
    followed by those of the headers of other parts it includes (from its directory)."""
    lines, parts = _section(header_path)
    directory = os.path.dirname(os.path.abspath(header_path))
    for part in parts:
        part_lines, _ = _section(os.path.join(directory, part))
        lines.extend(part_lines)
    return "\n".join(lines) + "\n"


def _loaded_path(name):
    """The absolute path the dynamic loader took for library `name` (from /proc/self/maps)."""
    stem = os.path.basename(name).split(".so")[0] + ".so"
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                fields = line.split(None, 5)
                if len(fields) == 6:
                    path = fields[5].strip()
                    if path.startswith("/") and os.path.basename(path).startswith(stem):
                        return path
    except OSError:
        pass
    return None


def _locate():
    tried = []
    library = os.environ.get("PARTKV_LIBRARY") or None
    header = os.environ.get("PARTKV_C_HEADER") or None
    if library:
        tried.append("PARTKV_LIBRARY=%s" % library)
    if header:
        tried.append("PARTKV_C_HEADER=%s" % header)
    if not (library and header):
        try:
            from . import _paths  # written by cmake --install
        except ImportError:
            tried.append("no partkv/_paths.py (the package was not installed by cmake --install)")
        else:
            library = library or getattr(_paths, "LIBRARY", None)
            header = header or getattr(_paths, "HEADER", None)
            tried.append("partkv/_paths.py: LIBRARY=%s HEADER=%s" % (
                getattr(_paths, "LIBRARY", None), getattr(_paths, "HEADER", None)))
    if not library:
        found = ctypes.util.find_library("partkv")
        tried.append("ctypes.util.find_library('partkv') = %r" % (found,))
        if found:
            library = found
    if not library:
        raise ImportError("partkv: libpartkv.so not found; tried: " + "; ".join(tried)
                          + ". Set PARTKV_LIBRARY to the library's path.")
    return library, header, tried


def _load():
    library, header, tried = _locate()
    cdef_ffi = cffi.FFI()
    try:
        handle = cdef_ffi.dlopen(library)
    except OSError as exc:
        raise ImportError("partkv: cannot load %s: %s (tried: %s)" % (library, exc, "; ".join(tried)))
    library_path = library if os.path.isabs(library) else (_loaded_path(library) or library)
    if not header:
        libdir = os.path.dirname(os.path.realpath(library_path)) if os.path.isabs(library_path) else ""
        candidates = []
        if libdir:
            candidates.append(os.path.join(libdir, os.pardir, "include", "partkv", "c.h"))
            if os.path.isabs(library_path):
                candidates.append(os.path.join(os.path.dirname(library_path), os.pardir, "include",
                                               "partkv", "c.h"))
        for candidate in candidates:
            if os.path.isfile(candidate):
                header = os.path.normpath(candidate)
                break
        else:
            raise ImportError("partkv: the C header partkv/c.h was not found next to %s (looked at %s);"
                              " set PARTKV_C_HEADER" % (library_path, ", ".join(candidates) or "nothing"))
    _keep_loaded.append(handle)
    ffi = cffi.FFI()
    try:
        ffi.cdef(read_cdef(header))
    except (OSError, cffi.CDefError) as exc:
        raise ImportError("partkv: cannot read the C declarations of %s: %s" % (header, exc))
    lib = ffi.dlopen(library)
    try:
        lib.partkv_version
        lib.partkv_store_open
    except AttributeError as exc:
        raise ImportError("partkv: %s lacks the C API of %s: %s" % (library_path, header, exc))
    return ffi, lib, library_path, header


ffi, lib, LIBRARY_PATH, HEADER_PATH = _load()
