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

// Runs `<layout.python> -m compileall` over `files` (absolute paths of installed .py files) with
// `jobs` workers (0: one per core) and pip's default invalidation mode (timestamp). Files with
// syntax errors for this interpreter (Python-2 leftovers in some wheels) are skipped quietly, as
// pip does. Throws util::Error with the interpreter's last lines when the interpreter itself cannot
// run.
BytecodeOutcome compile_bytecode(const install::PrefixLayout& layout,
                                 const std::vector<std::filesystem::path>& files,
                                 std::size_t jobs = 0);

}  // namespace aitk::app
