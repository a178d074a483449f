#include "utf8_arguments.hpp"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
// windows.h first: shellapi.h needs its types.
#include <shellapi.h>
// _setmode, _fileno, _O_BINARY
#include <fcntl.h>
#include <io.h>

#include <cstdio>

#include "aitk/util/utf8.hpp"
#endif

namespace aitk::cli {

Utf8Arguments::Utf8Arguments(int argc, char** argv) {
#ifdef _WIN32
    int count = 0;
    wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &count);
    if (wide != nullptr) {
        for (int i = 0; i < count; ++i)
            storage_.push_back(util::utf8_from_wide(wide[i]));
        LocalFree(wide);
    }
    if (storage_.empty() && argc > 0) storage_.assign(argv, argv + argc);
#else
    storage_.assign(argv, argv + argc);
#endif
    for (auto& argument : storage_)
        pointers_.push_back(argument.data());
    pointers_.push_back(nullptr);
}

void use_utf8_console() {
#ifdef _WIN32
    SetConsoleOutputCP(CP_UTF8);
    // Text mode would turn every "\n" into "\r\n": `lock -o -` or `snapshot` piped into a file
    // would give other bytes than the same command on Linux (and than the lockfile it writes
    // itself), and `--json` consumers would see stray '\r'. A console shows LF alone fine.
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
#endif
}

}  // namespace aitk::cli
