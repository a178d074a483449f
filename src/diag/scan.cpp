#include "aitk/diag/scan.hpp"

#include <algorithm>
#include <map>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "dependency_walk.hpp"
#include "fix_advice.hpp"
#include "image_cache.hpp"
#include "linux_loader.hpp"
#include "msvc_runtime.hpp"
#include "windows_checks.hpp"
#include "windows_loader.hpp"

namespace aitk::diag {

namespace fs = std::filesystem;
using namespace detail;

std::string_view target_os_name(TargetOs os) noexcept {
    return os == TargetOs::windows ? "windows" : "linux";
}

std::optional<TargetOs> parse_target_os(std::string_view name) noexcept {
    if (name == "linux") return TargetOs::linux_os;
    if (name == "windows") return TargetOs::windows;
    return std::nullopt;
}

std::string_view finding_kind_name(FindingKind kind) noexcept {
    switch (kind) {
        case FindingKind::missing:
            return "missing";
        case FindingKind::missing_export:
            return "missing-export";
        case FindingKind::wrong_architecture:
            return "wrong-architecture";
        case FindingKind::outdated_runtime:
            return "outdated-runtime";
        case FindingKind::shadowed:
            return "shadowed";
        case FindingKind::unreadable:
            return "unreadable";
        case FindingKind::runtime_load:
            return "runtime-load";
    }
    return "missing";
}

namespace {

struct Library {
    fs::path path;
    const Image* image = nullptr;
    bool under_torch_lib = false;
};

bool iequal_or_equal(std::string_view a, std::string_view b, bool case_insensitive) {
    return case_insensitive ? util::iequals(a, b) : a == b;
}

// Whether `relative` (to the root) lies under a torch/lib folder, where torch's own libraries
// are: they are scanned first so that findings start with what torch needs.
bool under_torch_lib(const fs::path& relative, bool case_insensitive) {
    std::string previous;
    for (const auto& part : relative.parent_path()) {
        std::string name = util::utf8_of(part);
        if (iequal_or_equal(previous, "torch", case_insensitive) &&
            iequal_or_equal(name, "lib", case_insensitive))
            return true;
        previous = std::move(name);
    }
    return false;
}

bool has_library_name(const fs::path& file, TargetOs os) {
    std::string name = util::utf8_of(file.filename());
    if (os == TargetOs::windows) {
        std::string lower = util::to_lower(name);
        return lower.ends_with(".dll") || lower.ends_with(".pyd");
    }
    return name.ends_with(".so") || name.find(".so.") != std::string::npos;
}

// "x64", "amd64", "i686", "aarch64"... as the reader of the target OS names them.
std::string normalize_architecture(std::string_view given, TargetOs os) {
    std::string arch = util::to_lower(util::trim(given));
    if (arch == "amd64" || arch == "x64" || arch == "x86-64") return "x86_64";
    if (arch == "i386" || arch == "i486" || arch == "i586" || arch == "i686" || arch == "win32")
        return "x86";
    if (arch == "arm64" || arch == "aarch64") return os == TargetOs::windows ? "arm64" : "aarch64";
    return arch;
}

class Findings {
  public:
    struct Item {
        Finding finding;
        FindingDetails details;
        std::size_t walk = 0;
        std::unordered_set<std::string> importer_keys;
        // missing_export: every missing function over all importers, first-met order.
        std::vector<std::string> symbols;
        std::unordered_set<std::string> symbol_keys;

        void add_symbols(const std::vector<std::string>& more) {
            for (const auto& name : more)
                if (symbol_keys.insert(name).second) symbols.push_back(name);
        }
    };

    explicit Findings(bool case_insensitive) : case_insensitive_(case_insensitive) {}

    // Merges by kind, name and `found`: the importers add up, and the chain (with what goes
    // with it) comes from the first scanned library that meets the finding, the shortest of
    // those its walk meets; one that fails at load beats one that fails at first call
    // (delay-load) whatever library it comes from. `walk` is the scanned library's index.
    void add(Finding f, FindingDetails d, fs::path importer, std::size_t walk) {
        // Files as the user would name them: "$ORIGIN/../lib" leaves "lib/../" in the paths
        // the loader builds. (The searched folders stay as the loader spells them.)
        for (auto& p : f.chain)
            p = p.lexically_normal();
        f.found = f.found.lexically_normal();
        f.bundled = f.bundled.lexically_normal();
        importer = importer.lexically_normal();
        std::string key = std::to_string(static_cast<int>(f.kind)) + '\n' +
                          (case_insensitive_ ? util::to_lower(f.name) : f.name) + '\n' +
                          util::utf8_of(f.found);
        if (!importer.empty()) f.importers = {importer};
        auto [it, inserted] = index_.try_emplace(key, items_.size());
        if (inserted) {
            std::vector<std::string> symbols = std::move(f.symbols);
            items_.push_back(Item{std::move(f), std::move(d), walk, {}, {}, {}});
            if (!importer.empty()) items_.back().importer_keys.insert(util::utf8_of(importer));
            items_.back().add_symbols(symbols);
            return;
        }
        Item& old = items_[it->second];
        old.add_symbols(f.symbols);
        if (!importer.empty() && old.importer_keys.insert(util::utf8_of(importer)).second)
            old.finding.importers.push_back(importer);
        bool better = old.finding.delay_load != f.delay_load
                          ? !f.delay_load
                          : walk == old.walk && f.chain.size() < old.finding.chain.size();
        if (!better) return;
        f.importers = std::move(old.finding.importers);
        old.finding = std::move(f);
        old.details = std::move(d);
        old.walk = walk;
    }

    std::vector<Finding> finish(const AdviceContext& context) {
        std::stable_sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) {
            return rank(a.finding.kind) < rank(b.finding.kind);
        });
        std::vector<Finding> out;
        out.reserve(items_.size());
        for (auto& item : items_) {
            item.finding.symbol_count = item.symbols.size();
            if (item.symbols.size() > kMaxListedSymbols) item.symbols.resize(kMaxListedSymbols);
            item.finding.symbols = std::move(item.symbols);
            item.finding.win_error = windows_error(item.finding.kind, context.os);
            item.finding.message = finding_message(item.finding, item.details, context);
            item.finding.fix = finding_fix(item.finding, item.details, context);
            out.push_back(std::move(item.finding));
        }
        return out;
    }

  private:
    static int rank(FindingKind kind) { return static_cast<int>(kind); }

    static int windows_error(FindingKind kind, TargetOs os) {
        if (os != TargetOs::windows) return 0;
        switch (kind) {
            case FindingKind::missing:
            case FindingKind::runtime_load:
                return 126;  // ERROR_MOD_NOT_FOUND
            case FindingKind::missing_export:
                return 127;  // ERROR_PROC_NOT_FOUND
            case FindingKind::wrong_architecture:
                return 193;  // ERROR_BAD_EXE_FORMAT
            case FindingKind::outdated_runtime:
                return 1114;  // ERROR_DLL_INIT_FAILED
            case FindingKind::shadowed:
            case FindingKind::unreadable:
                return 0;
        }
        return 0;
    }

    bool case_insensitive_;
    std::vector<Item> items_;
    std::unordered_map<std::string, std::size_t> index_;
};

// A finding about the DLL `event` resolved to: its name, the chain that imports it, what the
// loader takes and from where.
Finding finding_about(FindingKind kind, const WalkEvent& event) {
    const Resolution& r = event.resolution;
    Finding f;
    f.kind = kind;
    f.name = std::string(event.name);
    for (const auto& node : event.chain)
        f.chain.push_back(node.path);
    f.delay_load = event.delay_load;
    f.found = r.path;
    f.found_origin = r.origin;
    f.found_entry = r.entry;
    return f;
}

class Scanner {
  public:
    explicit Scanner(const ScanOptions& options)
        : options_(options),
          windows_(options.os == TargetOs::windows),
          folders_(windows_),
          findings_(windows_) {}

    ScanReport run();

  private:
    void enumerate();
    void index_scanned_folders();
    void choose_architecture();
    void on_event(const WalkEvent& event);
    void check_shadowing(const WalkEvent& event);
    void check_exports(const WalkEvent& event);
    void check_runtime_version(const WalkEvent& event);
    void check_runtime_loads(const Library& library);
    std::optional<fs::path> older_runtime_beside(const Resolution& r);
    bool fits_importer(const Image& candidate, const Image& importer) const;
    fs::path bundled_copy(std::string_view name, const Resolution& r, const ChainNode& importer);
    fs::path nearest_bundled(std::string_view name, const ChainNode& importer);
    bool inside_root(const fs::path& path) const;

    const ScanOptions& options_;
    bool windows_;
    fs::path root_;
    std::string root_prefix_;  // root_ + separator, for quick inside checks
    ImageCache images_;
    FolderCache folders_;
    Findings findings_;
    std::vector<Library> libraries_;
    std::optional<std::string> torch_version_;
    std::string architecture_;
    // Every file in a folder that holds a scanned library, by lookup key, folders in path
    // order: where a bundled copy of a shadowed (or missing) library is looked for.
    std::unordered_map<std::string, std::vector<fs::path>> bundled_index_;
    std::size_t walk_index_ = 0;               // the scanned library being walked
    WindowsLoader* windows_loader_ = nullptr;  // run()'s, while it runs (Windows only)
    std::optional<PeVersion> minimum_runtime_;
};

bool Scanner::inside_root(const fs::path& path) const {
    if (!path.is_absolute()) return false;
    std::string normal = util::utf8_of(path.lexically_normal());
    return normal.starts_with(root_prefix_);
}

void Scanner::enumerate() {
    std::map<fs::path, std::string> torch_versions;  // dist-info folder → version, path order
    std::error_code ec;
    fs::recursive_directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::directory_entry& entry = *it;
        std::error_code type_ec;
        auto status = entry.symlink_status(type_ec);
        if (type_ec) continue;
        std::string name = util::utf8_of(entry.path().filename());
        if (fs::is_directory(status)) {
            if (name.starts_with("torch-") && name.ends_with(".dist-info") && name.size() > 16 &&
                util::is_ascii_digit(name[6]) &&
                fs::is_directory(entry.path().parent_path() / "torch", type_ec))
                torch_versions.emplace(entry.path(), name.substr(6, name.size() - 16));
            continue;
        }
        // Links are not scanned (their target is, where it lies inside the root); lookups
        // still find libraries through them.
        if (!fs::is_regular_file(status) || !has_library_name(entry.path(), options_.os)) continue;
        const Image& image = images_.get(entry.path());
        // On Linux only ELF objects are libraries ("libc.so" may be a linker script); on
        // Windows every .dll / .pyd is one, and one that is not PE is reported.
        if (!windows_ && image.format != ImageFormat::elf) continue;
        if (libraries_.size() == options_.max_libraries)
            throw util::InputError(
                "cannot scan " + util::utf8_of(root_) + ": it holds more than " +
                    std::to_string(options_.max_libraries) + " native libraries",
                "pass a smaller folder (a prefix, its site-packages or one package)");
        fs::path relative = entry.path().lexically_relative(root_);
        libraries_.push_back(Library{entry.path(), &image, under_torch_lib(relative, windows_)});
    }
    std::sort(libraries_.begin(), libraries_.end(), [](const Library& a, const Library& b) {
        if (a.under_torch_lib != b.under_torch_lib) return a.under_torch_lib;
        return a.path < b.path;
    });
    if (!torch_versions.empty()) torch_version_ = torch_versions.begin()->second;
}

void Scanner::index_scanned_folders() {
    std::vector<fs::path> folders;
    for (const auto& library : libraries_)
        folders.push_back(library.path.parent_path());
    std::sort(folders.begin(), folders.end());
    folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
    for (const auto& folder : folders) {
        std::error_code ec;
        fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
        std::vector<fs::path> files;
        for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
            std::error_code type_ec;
            if (it->is_regular_file(type_ec)) files.push_back(it->path());
        }
        std::sort(files.begin(), files.end());
        for (auto& file : files)
            bundled_index_[folders_.key(util::utf8_of(file.filename()))].push_back(std::move(file));
    }
}

void Scanner::choose_architecture() {
    if (!options_.expected_architecture.empty()) {
        architecture_ = normalize_architecture(options_.expected_architecture, options_.os);
        return;
    }
    // The one most libraries have; a tie goes to the one met first in scan order.
    std::vector<std::pair<std::string, std::size_t>> counts;
    for (const auto& library : libraries_) {
        const Image& image = *library.image;
        if (!image.ok() || (windows_ ? !image.pe : !image.elf)) continue;
        auto it = std::find_if(counts.begin(), counts.end(),
                               [&](const auto& c) { return c.first == image.architecture; });
        if (it == counts.end())
            counts.emplace_back(image.architecture, 1);
        else
            ++it->second;
    }
    std::size_t best = 0;
    for (const auto& [arch, count] : counts) {
        if (count > best) {
            best = count;
            architecture_ = arch;
        }
    }
}

bool Scanner::fits_importer(const Image& candidate, const Image& importer) const {
    if (!candidate.ok()) return false;
    if (windows_)
        return candidate.pe && importer.pe && candidate.pe->machine == importer.pe->machine;
    return candidate.elf && importer.elf && candidate.elf->machine == importer.elf->machine &&
           candidate.elf->is_64bit == importer.elf->is_64bit;
}

fs::path Scanner::bundled_copy(std::string_view name, const Resolution& r,
                               const ChainNode& importer) {
    // A copy in a folder this importer would have searched later is the one that loads once
    // the shadowing one is gone.
    if (r.places && r.found_at != Resolution::npos) {
        const auto& places = *r.places;
        for (std::size_t i = r.found_at + 1; i < places.size(); ++i) {
            if (!inside_root(places[i].folder)) continue;
            auto file = folders_.find(places[i].folder, name);
            if (file && fits_importer(images_.get(*file), *importer.image)) return *file;
        }
    }
    return nearest_bundled(name, importer);
}

fs::path Scanner::nearest_bundled(std::string_view name, const ChainNode& importer) {
    // Beside the importer, else torch's own copy, else the first in path order.
    auto it = bundled_index_.find(folders_.key(name));
    if (it == bundled_index_.end()) return {};
    std::vector<const fs::path*> fitting;
    for (const auto& file : it->second)
        if (fits_importer(images_.get(file), *importer.image)) fitting.push_back(&file);
    if (fitting.empty()) return {};
    fs::path importer_folder = importer.path.parent_path().lexically_normal();
    for (const auto* file : fitting)
        if (file->parent_path().lexically_normal() == importer_folder) return *file;
    for (const auto* file : fitting)
        if (under_torch_lib(file->lexically_relative(root_), windows_)) return *file;
    return *fitting.front();
}

void Scanner::check_shadowing(const WalkEvent& event) {
    const Resolution& r = event.resolution;
    bool from_outside_list = false;
    if (windows_) {
        from_outside_list =
            r.origin == "PATH" || (r.origin == "System32" && !is_windows_system_dll(event.name) &&
                                   !is_msvc_runtime(event.name));
    } else {
        from_outside_list =
            r.origin == "LD_LIBRARY_PATH" || r.origin == "ld.so.cache" || r.origin == "default";
    }
    if (!from_outside_list || inside_root(r.path)) return;
    fs::path bundled = bundled_copy(event.name, r, event.chain.back());
    if (bundled.empty()) return;
    Finding f = finding_about(FindingKind::shadowed, event);
    f.bundled = std::move(bundled);
    findings_.add(std::move(f), {}, event.chain.back().path, walk_index_);
}

// The functions the importer asks `name` for that the DLL the loader binds to does not export:
// the loader fails with ERROR_PROC_NOT_FOUND, typically because another (older) copy of that DLL
// is found first.
void Scanner::check_exports(const WalkEvent& event) {
    const Resolution& r = event.resolution;
    if (!windows_ || event.symbols.empty() || !r.image || !r.image->pe) return;
    std::vector<std::string> missing = missing_exports(event.symbols, *r.image->pe);
    if (missing.empty()) return;
    Finding f = finding_about(FindingKind::missing_export, event);
    f.symbols = std::move(missing);
    // A copy inside the root that has them all is the one that should load.
    if (!inside_root(r.path) && r.status == ResolveStatus::found) {
        fs::path bundled = bundled_copy(event.name, r, event.chain.back());
        const Image* copy = bundled.empty() ? nullptr : &images_.get(bundled);
        if (copy && copy->pe && missing_exports(event.symbols, *copy->pe).empty())
            f.bundled = std::move(bundled);
    }
    findings_.add(std::move(f), {}, event.chain.back().path, walk_index_);
}

// A Visual C++ runtime DLL older than the one the scanned binaries were built with.
void Scanner::check_runtime_version(const WalkEvent& event) {
    const Resolution& r = event.resolution;
    if (!windows_ || !r.image || !is_outdated_runtime(event.name, *r.image, minimum_runtime_))
        return;
    Finding f = finding_about(FindingKind::outdated_runtime, event);
    f.version = r.image->pe->version->text();
    f.minimum_version = short_version(*minimum_runtime_);
    FindingDetails details;
    details.importer_architecture = event.chain.back().image->architecture;
    findings_.add(std::move(f), std::move(details), event.chain.back().path, walk_index_);
}

// vcruntime140.dll where vcruntime140_1.dll is missing: a runtime from before Visual C++ 2019,
// which added vcruntime140_1.dll.
std::optional<fs::path> Scanner::older_runtime_beside(const Resolution& r) {
    if (!r.places) return std::nullopt;
    for (const auto& place : *r.places) {
        if (auto file = folders_.find(place.folder, "vcruntime140.dll")) return file;
    }
    return std::nullopt;
}

// DLL names in a scanned DLL's read-only data that its import tables do not name are what it
// may LoadLibrary at run time (torch: cuDNN's sub-libraries, nvrtc-builtins); named when the
// loader would find them nowhere and the scanned folders do not hold them either.
void Scanner::check_runtime_loads(const Library& library) {
    const Image& image = *library.image;
    if (!windows_ || !windows_loader_ || !image.pe) return;
    auto imported = imported_names(*image.pe, util::utf8_of(library.path.filename()));
    bool system32_known = options_.windows.system32.has_value();
    LoadedModules none;
    for (const auto& name : image.pe->dll_name_strings) {
        // Names the scanned folders hold are there, whatever path the load uses.
        if (!is_runtime_load_candidate(util::to_lower(name), imported, system32_known) ||
            bundled_index_.count(folders_.key(name)))
            continue;
        Resolution r = windows_loader_->resolve(name, library.path, image.pe->machine, none);
        if (r.status != ResolveStatus::missing) continue;
        Finding f;
        f.kind = FindingKind::runtime_load;
        f.name = name;
        f.chain = {library.path};
        if (r.places) f.searched = *r.places;
        findings_.add(std::move(f), {}, library.path, walk_index_);
    }
}

void Scanner::on_event(const WalkEvent& event) {
    const Resolution& r = event.resolution;
    const ChainNode& importer = event.chain.back();
    if (r.status == ResolveStatus::found || r.status == ResolveStatus::already_loaded) {
        check_exports(event);
        check_runtime_version(event);
        if (r.status == ResolveStatus::found) check_shadowing(event);
        return;
    }
    Finding f;
    f.name = std::string(event.name);
    for (const auto& node : event.chain)
        f.chain.push_back(node.path);
    f.delay_load = event.delay_load;
    FindingDetails details;
    details.importer_architecture = importer.image->architecture;
    switch (r.status) {
        case ResolveStatus::missing: {
            f.kind = FindingKind::missing;
            if (r.places) f.searched = *r.places;
            details.skipped = r.skipped;
            // Where the root does ship it, the fix says so.
            f.bundled = nearest_bundled(event.name, importer);
            if (windows_ && util::iequals(event.name, "vcruntime140_1.dll"))
                details.older_runtime = older_runtime_beside(r).value_or(fs::path());
            break;
        }
        case ResolveStatus::wrong_architecture:
            f.kind = FindingKind::wrong_architecture;
            f.found = r.path;
            f.found_origin = r.origin;
            f.found_entry = r.entry;
            f.architecture = r.image ? r.image->architecture : std::string();
            f.expected_architecture = importer.image->architecture;
            break;
        case ResolveStatus::bad_image:
            f.kind = FindingKind::unreadable;
            f.found = r.path;
            f.found_origin = r.origin;
            f.found_entry = r.entry;
            details.problem = r.problem;
            break;
        default:
            return;
    }
    findings_.add(std::move(f), std::move(details), importer.path, walk_index_);
}

ScanReport Scanner::run() {
    std::error_code ec;
    if (!fs::is_directory(options_.root, ec))
        throw util::InputError(
            "cannot scan " + util::utf8_of(options_.root) + ": " +
                (fs::exists(options_.root, ec) ? "not a folder" : "no such folder"),
            "pass the folder that holds the native libraries: a prefix, its site-packages, or "
            "a torch/lib folder");
    root_ = fs::absolute(options_.root, ec).lexically_normal();
    if (root_.has_parent_path() && root_.filename().empty()) root_ = root_.parent_path();
    root_prefix_ = util::utf8_of(root_ / "");

    enumerate();
    index_scanned_folders();
    choose_architecture();

    std::optional<WindowsLoader> windows_loader;
    std::optional<LinuxLoader> linux_loader;
    if (windows_) {
        windows_loader.emplace(options_.windows, images_, folders_);
        windows_loader_ = &*windows_loader;
        minimum_runtime_ = minimum_msvc_runtime(torch_version_);
    } else {
        linux_loader.emplace(options_.linux_search, images_, folders_);
    }
    DependencyWalk walk(windows_loader ? &*windows_loader : nullptr,
                        linux_loader ? &*linux_loader : nullptr,
                        [this](const WalkEvent& event) { on_event(event); });

    for (walk_index_ = 0; walk_index_ < libraries_.size(); ++walk_index_) {
        const Library& library = libraries_[walk_index_];
        const Image& image = *library.image;
        Finding f;
        f.name = util::utf8_of(library.path.filename());
        f.chain = {library.path};
        f.found = library.path;
        FindingDetails details;
        details.scanned = true;
        if (!image.ok() || (windows_ ? !image.pe : !image.elf)) {
            f.kind = FindingKind::unreadable;
            details.problem = image.problem
                                  ? image.problem->describe()
                                  : std::string(windows_ ? "not a PE image" : "not an ELF object");
            findings_.add(std::move(f), std::move(details), {}, walk_index_);
            continue;
        }
        if (image.architecture != architecture_) {
            // It cannot load next to the others, so its own imports do not matter yet.
            f.kind = FindingKind::wrong_architecture;
            f.architecture = image.architecture;
            f.expected_architecture = architecture_;
            findings_.add(std::move(f), std::move(details), {}, walk_index_);
            continue;
        }
        walk.walk(ChainNode{library.path, &image});
        check_runtime_loads(library);
    }

    ScanReport report;
    report.os = options_.os;
    report.root = root_;
    report.libraries = libraries_.size();
    report.architecture = architecture_;
    report.torch_version = torch_version_;
    report.findings = findings_.finish(AdviceContext{options_.os, root_, torch_version_});
    return report;
}

}  // namespace

ScanReport scan_native_libraries(const ScanOptions& options) {
    return Scanner(options).run();
}

}  // namespace aitk::diag
