#!/usr/bin/env python3
"""The release archives of .ci/release, written so that the same files give the same bytes.

  release-archive.py pack DIR ARCHIVE [--mtime EPOCH]
      DIR, its name the archive's one top folder, into ARCHIVE (.zip or .tar.gz). Every member
      has the time EPOCH (default: $SOURCE_DATE_EPOCH, else 0; .ci/release passes the commit's
      time), owner and group 0 (root), and a fixed mode: folders 0755, files 0644, files with
      any execute bit in DIR 0755. Members are in a fixed order (by path, each folder before
      what it holds); gzip records no file name and no time; zip entries are Unix entries with
      the same modes and the DOS date of EPOCH in UTC (the time zone of the machine plays no part).
  release-archive.py unpack ARCHIVE DEST
      extracts ARCHIVE into DEST as a user's unzip or tar would (no member outside DEST; zip's
      Unix modes applied, which Python's zipfile leaves out) and prints the path of its one top
      folder; exit 1 when it has more than one, or members outside one.

Standard library only: release machines and CI need nothing but Python 3.
"""
import gzip
import io
import os
import stat
import sys
import tarfile
import time
import zipfile


def members(root):
    """(archive name, path, is_dir) of DIR and everything under it, in the archive's order."""
    top = os.path.basename(os.path.normpath(root))
    found = [((top,), root, True)]
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        parts = () if rel == "." else tuple(rel.split(os.sep))
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                sys.exit(f"release-archive: {path} is a link; a release holds files and folders only")
            found.append(((top,) + parts + (name,), path, os.path.isdir(path)))
    # Sorted by path components: a folder comes right before what it holds, whatever bytes
    # the names of its neighbours have.
    found.sort(key=lambda m: m[0])
    return [("/".join(parts) + ("/" if is_dir else ""), path, is_dir) for parts, path, is_dir in found]


def mode_of(path, is_dir):
    if is_dir or os.stat(path).st_mode & 0o111:
        return 0o755
    return 0o644


def pack_tar_gz(root, archive, mtime):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, path, is_dir in members(root):
            info = tarfile.TarInfo(name.rstrip("/"))
            info.mtime = mtime
            info.mode = mode_of(path, is_dir)
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            if is_dir:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                with open(path, "rb") as f:
                    data = f.read()
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    with open(archive, "wb") as out:
        # filename="" and mtime=0: the gzip header names no file and no time.
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz:
            gz.write(raw.getvalue())


def pack_zip(root, archive, mtime):
    # DOS dates start in 1980 and have a two-second step.
    date = time.gmtime(max(mtime, 315532800))[:6]
    with zipfile.ZipFile(archive, "w") as z:
        for name, path, is_dir in members(root):
            info = zipfile.ZipInfo(name, date_time=date)
            info.create_system = 3  # Unix: external_attr's high half is the st_mode
            mode = mode_of(path, is_dir)
            if is_dir:
                info.external_attr = ((stat.S_IFDIR | mode) << 16) | 0x10  # 0x10: MS-DOS folder
                info.compress_type = zipfile.ZIP_STORED
                z.writestr(info, b"")
            else:
                info.external_attr = (stat.S_IFREG | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(path, "rb") as f:
                    z.writestr(info, f.read(), compresslevel=9)


def pack(root, archive, mtime):
    if not os.path.isdir(root):
        sys.exit(f"release-archive: {root} is not a folder")
    if archive.endswith(".tar.gz"):
        pack_tar_gz(root, archive, mtime)
    elif archive.endswith(".zip"):
        pack_zip(root, archive, mtime)
    else:
        sys.exit(f"release-archive: {archive}: the name must end in .zip or .tar.gz")


def safe_names(names, archive):
    """The one top folder of NAMES; exits when a name leaves it."""
    tops = set()
    for name in names:
        parts = name.rstrip("/").split("/")
        if name.startswith("/") or ".." in parts or "\\" in name or not parts[0]:
            sys.exit(f"release-archive: {archive}: member {name!r} would land outside the folder")
        tops.add(parts[0])
    if len(tops) != 1:
        sys.exit(f"release-archive: {archive} holds {len(tops)} top folders ({', '.join(sorted(tops))}), expected one")
    return tops.pop()


def unpack(archive, dest):
    os.makedirs(dest, exist_ok=True)
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            top = safe_names(z.namelist(), archive)
            for info in z.infolist():
                path = z.extract(info, dest)
                mode = info.external_attr >> 16
                if info.create_system == 3 and mode:
                    os.chmod(path, stat.S_IMODE(mode))
    elif archive.endswith(".tar.gz"):
        with tarfile.open(archive, "r:gz") as tar:
            top = safe_names(tar.getnames(), archive)
            # "data": regular files and folders only, nothing outside dest, modes kept.
            tar.extractall(dest, filter="data")
    else:
        sys.exit(f"release-archive: {archive}: not a .zip or .tar.gz")
    print(os.path.join(dest, top))


def main(argv):
    if len(argv) >= 3 and argv[0] == "pack":
        mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
        rest = argv[3:]
        if rest[:1] == ["--mtime"] and len(rest) == 2:
            mtime = int(rest[1])
        elif rest:
            sys.exit(__doc__)
        pack(argv[1], argv[2], mtime)
    elif len(argv) == 3 and argv[0] == "unpack":
        unpack(argv[1], argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
