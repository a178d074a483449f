#include "utf8_arguments.hpp"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
// windows.h first: shellapi.h needs its types.
#include <shellapi.h>

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
#endif
}

}  // namespace aitk::cli
