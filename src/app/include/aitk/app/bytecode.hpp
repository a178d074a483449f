#pragma once
// `--compile-bytecode`: the prefix's interpreter compiles freshly installed .py files to
// __pycache__/*.pyc (as pip --compile and uv --compile-bytecode do), so the first import of a
// large package (torch: ~4,000 modules) does not pay for it.
#include <cstddef>
#include <filesystem>
#include <vector>

#include "aitk/install/layout.hpp"

namespace aitk::app {

struct BytecodeOutcome {
    std::size_t files = 0;  // .py files handed to compileall
};

// Runs `<layout.python> -m compileall -f` over `files` (absolute paths of installed .py files,
// passed on stdin, so any number fits), split over up to `jobs` interpreters (0: one per core;
// compileall's own -j parallelises directories only). The invalidation mode is the interpreter's
// default, as with pip: timestamp, or checked-hash when SOURCE_DATE_EPOCH is set. Files with
// syntax errors for this interpreter (Python-2 leftovers in some wheels) are skipped quietly, as
// pip does. Throws util::Error with the interpreter's last lines when the interpreter itself
// cannot run (not there, not starting, no compileall).
BytecodeOutcome compile_bytecode(const install::PrefixLayout& layout,
                                 const std::vector<std::filesystem::path>& files,
                                 std::size_t jobs = 0);

}  // namespace aitk::app
