#pragma once
// The Windows loader's search for a DLL that another DLL imports, as CPython 3.8+ loads an
// extension (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR), run over files
// (private to diag): API sets and KnownDLLs, a module already loaded under that name, the
// importer's own folder, the os.add_dll_directory folders, System32, PATH. Names compare
// case-insensitively; a DLL of another machine stops the search (ERROR_BAD_EXE_FORMAT).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aitk/diag/scan.hpp"
#include "image_cache.hpp"
#include "resolution.hpp"

namespace aitk::diag::detail {

// Names are compared lower-cased; each takes any case.
bool is_api_set(std::string_view dll) noexcept;
bool is_known_dll(std::string_view dll) noexcept;  // the KnownDLLs section names
// A DLL every Windows 10+ System32 holds (what counts as present when System32 is unknown).
bool is_windows_system_dll(std::string_view dll) noexcept;
// The Visual C++ 2015-2022 runtime, which Windows does not ship.
bool is_msvc_runtime(std::string_view dll) noexcept;
// python3.dll / python3XY.dll: the interpreter loading an extension has already loaded it.
bool is_python_dll(std::string_view dll) noexcept;

class WindowsLoader {
  public:
    WindowsLoader(const WindowsSearch& search, ImageCache& images, FolderCache& folders);

    // How `name`, imported by the DLL at `importer` (machine `importer_machine`), is found in
    // a process that already holds `loaded` (keys: lower-case file names).
    Resolution resolve(std::string_view name, const std::filesystem::path& importer,
                       std::uint16_t importer_machine, const LoadedModules& loaded);

  private:
    std::shared_ptr<const std::vector<SearchedPlace>> places_for(
        const std::filesystem::path& folder);
    Resolution search(const std::string& lower, std::string_view name,
                      const std::shared_ptr<const std::vector<SearchedPlace>>& places,
                      std::uint16_t importer_machine);

    const WindowsSearch& search_;
    ImageCache& images_;
    FolderCache& folders_;
    std::unordered_map<std::string, std::shared_ptr<const std::vector<SearchedPlace>>> places_;
    std::unordered_map<std::string, Resolution> memo_;
};

}  // namespace aitk::diag::detail
