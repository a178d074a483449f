#pragma once
// A shared library opened at run time (dlopen / LoadLibraryExW), closed when the object goes.
// Private to the platform layer.
#include <string>
#include <utility>

#include "aitk/util/expected.hpp"

namespace aitk::platform::detail {

class DynamicLibrary {
  public:
    // A name without a directory uses the loader's search (dlopen's; on Windows System32 only,
    // so a planted DLL in the current directory is never picked up). The error is the loader's
    // message.
    static util::Expected<DynamicLibrary, std::string> open(const std::string& name);

    DynamicLibrary(DynamicLibrary&& other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)) {}
    DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
    DynamicLibrary(const DynamicLibrary&) = delete;
    DynamicLibrary& operator=(const DynamicLibrary&) = delete;
    ~DynamicLibrary();

    void* symbol(const char* name) const;
    template <class Fn>
    Fn function(const char* name) const {
        return reinterpret_cast<Fn>(symbol(name));
    }

  private:
    explicit DynamicLibrary(void* handle) : handle_(handle) {}
    void* handle_ = nullptr;
};

}  // namespace aitk::platform::detail
