# aitk-env's PEP 517 driver: imports a project's build backend and calls one hook, in a fresh
# interpreter whose sys.path holds only the build environment (set up by the caller).
#
#   python pep517_driver.py HOOK REQUEST_JSON RESULT_JSON [LOG]
#
# REQUEST_JSON names the backend ("build_backend", "backend_path"), the project folder
# ("source_dir", also the working directory), "config_settings", the output folders
# ("wheel_directory", "metadata_directory") and whether the build is "isolated" from the
# interpreter's own site-packages. RESULT_JSON receives {"ok": true, "value": ...} or
# {"ok": false, "kind": ..., "message": ...}; the exit status is 0 only for "ok". LOG, when
# given, receives everything the backend and its child processes print (else the terminal
# does, which is how a person reruns a failed hook).
#
# Standard library only, and nothing newer than Python 3.8.
import json
import os
import site
import sys
import traceback
import zipfile

HOOKS = (
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_wheel",
    "build_wheel",
    "get_requires_for_build_editable",
    "build_editable",
)


class DriverFailure(Exception):
    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind
        self.message = message


def write_result(path, result):
    # Written beside the final name and renamed, so the caller never reads half a result.
    partial = path + ".part"
    with open(partial, "w", encoding="utf-8") as out:
        json.dump(result, out)
    os.replace(partial, path)


def redirect_output(log_path):
    # fd-level, so compilers and other children the backend starts land in the log as well.
    sys.stdout.flush()
    sys.stderr.flush()
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def inside(path, folder):
    path = os.path.normcase(os.path.realpath(path))
    folder = os.path.normcase(os.path.realpath(folder))
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def isolate():
    # What pip's isolated builds do: the interpreter's own site-packages (and the user's) leave
    # sys.path, so only the build environment on PYTHONPATH provides packages; its .pth files
    # are processed as they would be in a real site-packages.
    own = []
    try:
        own.extend(site.getsitepackages())
    except AttributeError:  # old virtualenv's site module
        pass
    try:
        own.append(site.getusersitepackages())
    except AttributeError:
        pass
    own = set(os.path.normcase(os.path.realpath(p)) for p in own if p)
    sys.path[:] = [p for p in sys.path if os.path.normcase(os.path.realpath(p or ".")) not in own]
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and os.path.isdir(entry):
            site.addsitedir(entry)


def load_backend(spec, backend_path, source_dir):
    # PEP 517: backend-path entries are relative to the project and come first on sys.path.
    paths = []
    for entry in backend_path:
        full = os.path.normpath(os.path.join(source_dir, entry))
        if not inside(full, source_dir):
            raise DriverFailure(
                "backend-invalid",
                "backend-path entry %r is outside the source tree %s" % (entry, source_dir),
            )
        paths.append(full)
    sys.path[:0] = paths

    module_name, _, object_path = spec.partition(":")
    try:
        __import__(module_name)
    except BaseException:
        if isinstance(sys.exc_info()[1], KeyboardInterrupt):
            raise
        traceback.print_exc()
        raise DriverFailure(
            "backend-unavailable",
            "cannot import build backend %r: %s" % (module_name, format_exception()),
        )
    module = sys.modules[module_name]
    backend = module
    for attribute in filter(None, object_path.split(".")):
        try:
            backend = getattr(backend, attribute)
        except AttributeError:
            raise DriverFailure(
                "backend-unavailable", "build backend %r has no attribute %r" % (spec, attribute)
            )
    if paths:
        # An in-tree backend must really come from the tree, not from a same-named package that
        # happened to be installed in the build environment.
        location = getattr(module, "__file__", None) or ""
        if not any(inside(location, p) for p in paths):
            raise DriverFailure(
                "backend-invalid",
                "build backend %r was loaded from %s, not from backend-path %s"
                % (module_name, location or "(unknown)", ", ".join(backend_path)),
            )
    return backend


def format_exception():
    kind, value = sys.exc_info()[:2]
    text = str(value)
    return kind.__name__ + (": " + text if text else "")


def string_list(value, hook):
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise DriverFailure("bad-return", "%s returned %r, not a list of strings" % (hook, value))
    return list(value)


def basename(value, hook, folder):
    if not isinstance(value, str) or not value or os.path.basename(value) != value:
        raise DriverFailure("bad-return", "%s returned %r, not a file name" % (hook, value))
    if not os.path.exists(os.path.join(folder, value)):
        raise DriverFailure(
            "bad-return", "%s returned %r, which does not exist in %s" % (hook, value, folder)
        )
    return value


def metadata_from_wheel(wheel, metadata_directory):
    # The fallback pip uses when a backend has no prepare_metadata_for_build_wheel: build the
    # wheel and copy its top-level .dist-info folder out of it.
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        dist_infos = sorted(
            {n.split("/", 1)[0] for n in names if n.split("/", 1)[0].endswith(".dist-info")}
        )
        with_metadata = [d for d in dist_infos if d + "/METADATA" in names]
        if len(with_metadata) != 1:
            raise DriverFailure(
                "bad-return",
                "wheel %s has %d .dist-info folders with METADATA, expected one"
                % (os.path.basename(wheel), len(with_metadata)),
            )
        dist_info = with_metadata[0]
        for name in names:
            if not name.startswith(dist_info + "/") or name.endswith("/"):
                continue
            relative = name[len(dist_info) + 1 :]
            if relative.startswith("/") or ".." in relative.split("/"):
                continue
            target = os.path.join(metadata_directory, dist_info, *relative.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with archive.open(name) as source, open(target, "wb") as out:
                out.write(source.read())
    return dist_info


def call_hook(backend, hook, request):
    config = request.get("config_settings") or {}
    wheel_directory = request.get("wheel_directory")
    metadata_directory = request.get("metadata_directory")
    function = getattr(backend, hook, None)

    if hook in ("get_requires_for_build_wheel", "get_requires_for_build_editable"):
        if function is None:
            return {"value": [], "hook_missing": True}
        return {"value": string_list(function(config), hook), "hook_missing": False}

    if hook == "prepare_metadata_for_build_wheel":
        if function is not None:
            name = basename(function(metadata_directory, config), hook, metadata_directory)
            return {"value": name, "hook_missing": False}
        build = getattr(backend, "build_wheel", None)
        if build is None:
            raise DriverFailure("hook-missing", "the backend has no build_wheel hook")
        wheel = basename(build(wheel_directory, config), "build_wheel", wheel_directory)
        full = os.path.join(wheel_directory, wheel)
        return {
            "value": metadata_from_wheel(full, metadata_directory),
            "hook_missing": True,
            "wheel": wheel,
        }

    # build_wheel, build_editable
    if function is None:
        raise DriverFailure("hook-missing", "the backend has no %s hook" % hook)
    if metadata_directory:
        name = function(wheel_directory, config, metadata_directory)
    else:
        name = function(wheel_directory, config)
    return {"value": basename(name, hook, wheel_directory), "hook_missing": False}


def main(argv):
    if len(argv) not in (4, 5) or argv[1] not in HOOKS:
        sys.stderr.write(
            "usage: %s {%s} REQUEST_JSON RESULT_JSON [LOG]\n" % (argv[0], ",".join(HOOKS))
        )
        return 2
    hook, request_path, result_path = argv[1], argv[2], argv[3]
    with open(request_path, encoding="utf-8") as source:
        request = json.load(source)
    if len(argv) == 5:
        redirect_output(argv[4])
    try:
        source_dir = request["source_dir"]
        os.chdir(source_dir)
        if request.get("isolated", True):
            isolate()
        backend = load_backend(request["build_backend"], request.get("backend_path") or [],
                               source_dir)
        try:
            result = call_hook(backend, hook, request)
        except DriverFailure:
            raise
        except BaseException:
            if isinstance(sys.exc_info()[1], KeyboardInterrupt):
                raise
            traceback.print_exc()
            raise DriverFailure("hook-failed", "%s raised %s" % (hook, format_exception()))
    except DriverFailure as failure:
        sys.stderr.write("aitk-env: %s\n" % failure.message)
        sys.stderr.flush()
        write_result(result_path, {"ok": False, "kind": failure.kind, "message": failure.message})
        return 1
    result["ok"] = True
    sys.stdout.flush()
    sys.stderr.flush()
    write_result(result_path, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
