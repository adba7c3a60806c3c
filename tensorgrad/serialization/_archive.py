"""Reading a checkpoint's archive: each member's recorded size is checked against what its
bytes can hold before anything is allocated, and every failure is an ``Invalid``."""

import json
import math
import zipfile

import numpy as np
from numpy.lib import format as npy

from ._layout import FORMAT, MANIFEST, MANIFEST_KEYS, PICKLE_MEMBER, VERSION, Invalid, is_pickle_root, member_name

DEFLATE_RATIO = 1032            # deflate never expands its input more than this
COMPRESSED_MANIFEST = 1 << 20   # the most a deflated manifest may expand to (the JSON is parsed whole)
CHUNK = 1 << 16                 # bytes read at a time into an array


class Archive:
    """An open checkpoint archive whose members are read with their sizes checked first."""

    def __init__(self, archive, where, length):
        self.archive = archive
        self.where = where
        self.length = length

    def fail(self, what):
        return Invalid(f"{self.where} is not a valid tensorgrad checkpoint: {what}")

    def info(self, name):
        """The member ``name``, refused when its recorded size is not one its bytes can hold."""
        try:
            info = self.archive.getinfo(name)
        except KeyError:
            raise self.fail(f"the archive has no member {name!r}") from None
        if info.flag_bits & 1:
            raise self.fail(f"{name} is encrypted")
        if info.compress_size > self.length:
            raise self.fail(f"{name} records {info.compress_size} bytes but the file has {self.length}")
        if info.compress_type == zipfile.ZIP_STORED:
            if info.file_size != info.compress_size:
                raise self.fail(f"{name} is stored uncompressed but records two sizes "
                                f"({info.compress_size} and {info.file_size} bytes)")
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            if info.file_size > DEFLATE_RATIO * info.compress_size + 1024:
                raise self.fail(f"{name} records {info.file_size} bytes, more than its {info.compress_size} "
                                "deflated bytes can hold")
        else:
            raise self.fail(f"{name} is compressed with method {info.compress_type}; a checkpoint's members are "
                            "stored (as tensorgrad.save writes them) or deflated")
        return info

    def manifest(self):
        info = self.info(MANIFEST)
        if info.compress_type != zipfile.ZIP_STORED and info.file_size > COMPRESSED_MANIFEST:
            raise self.fail(f"{MANIFEST} is deflated and expands to {info.file_size} bytes (at most "
                            f"{COMPRESSED_MANIFEST} are read from a deflated manifest; tensorgrad.save stores it "
                            "uncompressed)")
        text = self.read_member(info, lambda member: member.read())
        try:
            manifest = json.loads(text.decode("utf-8"), parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError, RecursionError) as e:
            raise self.fail(f"{MANIFEST} is not JSON ({e})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise Invalid(f"{self.where} is not a tensorgrad checkpoint: {MANIFEST} does not name the format")
        if manifest.get("version") != VERSION:
            raise Invalid(f"{self.where} has checkpoint format version {manifest.get('version')!r}; this "
                               f"tensorgrad reads version {VERSION}")
        if set(manifest) != MANIFEST_KEYS:
            raise self.fail(f"{MANIFEST} has the keys {sorted(manifest)}, not {sorted(MANIFEST_KEYS)}")
        crcs = manifest["arrays"]
        if type(crcs) is not list or not all(type(c) is int and 0 <= c < 1 << 32 for c in crcs):
            raise self.fail("the array table is not a list of CRC-32 values")
        if type(manifest["tensors"]) is not list:
            raise self.fail("the tensor table is not a list")
        expected = {MANIFEST} | {member_name(i) for i in range(len(crcs))}
        root = manifest["root"]
        if is_pickle_root(root):
            if set(root) != {"$", "crc"} or type(root["crc"]) is not int or not 0 <= root["crc"] < 1 << 32:
                raise self.fail("the pickle root is not {\"$\": \"pickle\", \"crc\": <CRC-32>}")
            expected.add(PICKLE_MEMBER)
        extra = sorted(set(self.archive.namelist()) - expected)
        if extra:
            raise self.fail(f"the archive has members the manifest does not list ({', '.join(extra[:3])})")
        return manifest

    def array(self, index, crc):
        """Array member ``index``, exactly as its .npy header declares it."""
        info = self.info(member_name(index))
        if info.CRC != crc:
            raise self.fail(f"{info.filename} is not the array the manifest lists (their CRC-32 values differ)")
        return self.read_member(info, lambda member: self.read_npy(member, info.file_size))

    def pickle_bytes(self, crc):
        """The bytes of the pickle member (read, never unpickled here)."""
        info = self.info(PICKLE_MEMBER)
        if info.CRC != crc:
            raise self.fail(f"{PICKLE_MEMBER} is not the pickle the manifest lists (their CRC-32 values differ)")
        return self.read_member(info, lambda member: member.read())

    def read_npy(self, member, size):
        """The array in the open member of ``size`` bytes, read into an array allocated once."""
        name = member.name
        try:
            version = npy.read_magic(member)
        except ValueError:
            raise self.fail(f"{name} is not a readable .npy array (no .npy header)") from None
        if version not in ((1, 0), (2, 0)):
            raise self.fail(f"{name} has .npy format version {version}; a checkpoint's arrays use 1.0 or 2.0")
        read_header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        try:
            shape, fortran_order, dtype = read_header(member)
        except ValueError as e:
            if "allow_pickle" in str(e) or "object" in str(e):
                raise self.fail(f"{name} holds Python objects, which would need unpickling ({e})") from None
            raise self.fail(f"{name} is not a readable .npy array ({e})") from None
        if dtype.hasobject:
            raise self.fail(f"{name} holds Python objects, which would need unpickling")
        if fortran_order:
            raise self.fail(f"{name} is in Fortran order; tensorgrad.save writes C order")
        if not all(n >= 0 for n in shape):
            raise self.fail(f"{name} declares the shape {shape}")
        nbytes = math.prod(shape) * dtype.itemsize
        if member.tell() + nbytes != size:
            raise self.fail(f"{name} declares a {dtype} array of shape {shape} ({nbytes} bytes), but the "
                            f"archive records {size - member.tell()} bytes after its header")
        arr = np.empty(shape, dtype)
        if nbytes:
            buffer = memoryview(arr.reshape(-1).view(np.uint8))
            filled = 0
            while filled < nbytes:
                n = member.readinto(buffer[filled:filled + CHUNK])
                if not n:
                    raise self.fail(f"{name} ends after {filled} of its {nbytes} bytes")
                filled += n
        if member.read(1):
            raise self.fail(f"{name} holds more than its header declares")
        return arr

    def read_member(self, info, read):
        """``read(member)`` on the open member, any failure to read it reported as ``Invalid``."""
        try:
            with self.archive.open(info) as member:
                return read(member)
        except (Invalid, MemoryError):
            raise
        except Exception as e:  # noqa: BLE001 - zipfile and zlib report damage with many types
            raise self.fail(f"{info.filename} cannot be read ({type(e).__name__}: {e})") from None


# ---------------------------------------------------------------------------- decoding

def _reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")
