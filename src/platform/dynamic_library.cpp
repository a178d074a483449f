#include "dynamic_library.hpp"

#include "aitk/util/utf8.hpp"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace aitk::platform::detail {


util::Expected<DynamicLibrary, std::string> DynamicLibrary::open(const std::string& name) {
#ifdef _WIN32
    bool has_dir = name.find_first_of("\\/") != std::string::npos;
    // A bare name is looked up in System32 only; a full path also resolves the DLL's own
    // dependencies from its folder.
    DWORD flags = has_dir ? LOAD_WITH_ALTERED_SEARCH_PATH : LOAD_LIBRARY_SEARCH_SYSTEM32;
    HMODULE h = LoadLibraryExW(util::wide_from_utf8(name).c_str(), nullptr, flags);
    if (!h) {
        DWORD code = GetLastError();
        return util::Unexpected(name + ": LoadLibraryExW failed with error " +
                                std::to_string(code));
    }
    return DynamicLibrary(reinterpret_cast<void*>(h));
#else
    dlerror();
    void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* why = dlerror();
        return util::Unexpected(why ? std::string(why) : name + ": cannot be loaded");
    }
    return DynamicLibrary(h);
#endif
}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
    if (this != &other) {
        DynamicLibrary old(std::exchange(handle_, std::exchange(other.handle_, nullptr)));
    }
    return *this;
}

DynamicLibrary::~DynamicLibrary() {
    if (!handle_) return;
#ifdef _WIN32
    FreeLibrary(reinterpret_cast<HMODULE>(handle_));
#else
    ::dlclose(handle_);
#endif
}

void* DynamicLibrary::symbol(const char* name) const {
    if (!handle_) return nullptr;
#ifdef _WIN32
    return reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(handle_), name));
#else
    return ::dlsym(handle_, name);
#endif
}

}  // namespace aitk::platform::detail
