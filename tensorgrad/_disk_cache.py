"""The compilation cache on disk: JAX's persistent cache of compiled programs, in the user's cache
folder, bounded in size by tensorgrad.

Every process compiles its kernels again unless XLA's programs are kept on disk, so the cache is
on by default (every program, however quick to compile: a small model's first steps compile
hundreds of them). ``TENSORGRAD_COMPILATION_CACHE`` moves it (a folder) or turns it off (``0``);
a folder set through JAX's own configuration (``JAX_COMPILATION_CACHE_DIR``) is left as it is.

The bound is kept here rather than by JAX's own eviction (``jax_compilation_cache_max_size``):
with that set, JAX reads the size and access stamp of every entry in the folder each time it
writes one, and locks the folder and writes a stamp each time it reads one. A folder of 4000
entries (50 MB) made each write cost about 0.1 s, and a small CNN's first two steps, which write
twenty programs, 2.9 s instead of 1.3 s; at the 2 GiB bound the folder holds over 100,000
entries. Instead, at import and at most once a day (the time of the last look is a stamp file in
the folder), a background thread sums the entries' sizes and, when they pass the bound, removes
the least recently used (by the file system's access time, else the time written) until they
weigh three quarters of it.
"""

import os
import tempfile
import threading
import time
import warnings

import jax

__all__ = ["DISK_ENV", "DISK_MAX_BYTES", "default_disk_dir", "disk_cache_dir", "configure_disk_cache",
           "bound_folder"]

DISK_ENV = "TENSORGRAD_COMPILATION_CACHE"
DISK_MAX_BYTES = 2 << 30
SWEEP_INTERVAL_S = 24 * 3600
_STAMP = ".tensorgrad-swept"
_ENTRY_SUFFIX = "-cache"        # JAX's name for an entry; its own eviction adds a "-atime" file
_STAMP_SUFFIX = "-atime"
_OFF = {"", "0", "off", "false", "no", "none"}


def default_disk_dir():
    """``$XDG_CACHE_HOME/tensorgrad/xla``, by default ``~/.cache/tensorgrad/xla``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tensorgrad", "xla")


def disk_cache_dir():
    """The folder JAX keeps compiled programs in, or None when the cache on disk is off."""
    return jax.config.jax_compilation_cache_dir


def _writable(path):
    """None when ``path`` (made if missing) takes a new file, else the error."""
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".probe-"):
            pass
    except OSError as error:
        return error
    return None


def bound_folder(path, limit=DISK_MAX_BYTES):
    """Remove the least recently used entries of the cache folder ``path`` while its entries
    weigh more than ``limit`` bytes, down to three quarters of it; the access stamps JAX's own
    eviction left go too. Returns the number of entries removed. Files that vanish meanwhile
    (another process's sweep) are skipped."""
    entries = []
    total = 0
    with os.scandir(path) as listing:
        for item in listing:
            name = item.name
            try:
                if name.endswith(_STAMP_SUFFIX):
                    os.unlink(item.path)
                elif name.endswith(_ENTRY_SUFFIX):
                    info = item.stat()
                    entries.append((max(info.st_atime, info.st_mtime), item.path, info.st_size))
                    total += info.st_size
            except OSError:
                continue
    if total <= limit:
        return 0
    entries.sort()
    target = limit * 3 // 4
    removed = 0
    for _, entry, size in entries:
        if total <= target:
            break
        try:
            os.unlink(entry)
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def _due(path, now):
    """Whether the folder was last bounded more than ``SWEEP_INTERVAL_S`` ago (or never): the
    stamp file is touched when it is due, so concurrent imports rarely sweep twice."""
    stamp = os.path.join(path, _STAMP)
    try:
        if now - os.stat(stamp).st_mtime < SWEEP_INTERVAL_S:
            return False
        os.utime(stamp, (now, now))
    except FileNotFoundError:
        try:
            with open(stamp, "x"):
                pass
        except OSError:
            return False
    except OSError:
        return False
    return True


def _bound_quietly(path):
    try:
        bound_folder(path)
    except OSError:
        pass            # a folder that went away, or one that cannot be listed: nothing to bound


def configure_disk_cache(environ=os.environ):
    """Turn JAX's persistent compilation cache on as ``TENSORGRAD_COMPILATION_CACHE`` says (at
    import). A folder that cannot be written gives one warning, and programs are not kept."""
    if jax.config.jax_compilation_cache_dir:        # the user's own JAX setting
        return
    setting = environ.get(DISK_ENV)
    if setting is not None and setting.strip().lower() in _OFF:
        return
    path = os.path.abspath(os.path.expanduser(setting)) if setting else default_disk_dir()
    error = _writable(path)
    if error is not None:
        warnings.warn(f"tensorgrad: the compilation cache folder {path!r} cannot be written ({error}); compiled "
                      f"programs are not kept between runs. Set {DISK_ENV} to another folder, or to 0 to turn the "
                      "cache off.", RuntimeWarning, stacklevel=2)
        return
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_compilation_cache_max_size", -1)     # no scan per write: bounded here
    jax.config.update("jax_compilation_cache_dir", path)
    if _due(path, time.time()):
        threading.Thread(target=_bound_quietly, args=(path,), name="tensorgrad-cache-bound", daemon=True).start()


configure_disk_cache()
