#include "aitk/platform/tables.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>

#include "aitk/util/strings.hpp"
#include "table_error.hpp"

namespace aitk::embedded {
std::string_view cuda_drivers_yaml();
std::string_view torch_variants_yaml();
std::string_view cuda_archs_yaml();
std::string_view hardware_profiles_yaml();
}  // namespace aitk::embedded

namespace aitk::platform {

// ---------------------------------------------------------------------------------------------
// Small value helpers
// ---------------------------------------------------------------------------------------------

Parsed<ReleaseKey> ReleaseKey::parse(std::string_view text) {
    std::string_view t = util::trim(text);
    auto parts = util::split(t, '.');
    if (parts.size() < 2) {
        return parse_error("expected a torch release MAJOR.MINOR such as 2.13", text);
    }
    unsigned values[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        std::string_view p = parts[static_cast<std::size_t>(i)];
        auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), values[i]);
        if (p.empty() || p.size() > 4 || ec != std::errc() || ptr != p.data() + p.size()) {
            return parse_error("expected a torch release MAJOR.MINOR such as 2.13", text);
        }
    }
    return ReleaseKey{values[0], values[1]};
}

std::string ReleaseKey::to_string() const {
    return std::to_string(major) + "." + std::to_string(minor);
}

const CudaFamily* DriverTable::family(unsigned cuda_major) const {
    for (const auto& f : families) {
        if (f.cuda_major == cuda_major) return &f;
    }
    return nullptr;
}

const DriverVersion* DriverTable::toolkit_driver(const CudaVersion& cuda, OsKind os) const {
    for (const auto& t : toolkit_drivers) {
        if (t.cuda != cuda) continue;
        const auto& driver = os == OsKind::windows ? t.windows_driver : t.linux_driver;
        return driver ? &*driver : nullptr;
    }
    return nullptr;
}

const ArchDriverFloor* DriverTable::arch_floor(const ComputeCapability& cc) const {
    for (const auto& f : arch_floors) {
        if (std::find(f.capabilities.begin(), f.capabilities.end(), cc) != f.capabilities.end())
            return &f;
    }
    for (const auto& f : arch_floors) {
        if (std::find(f.capability_majors.begin(), f.capability_majors.end(), cc.major) !=
            f.capability_majors.end()) {
            return &f;
        }
    }
    return nullptr;
}

std::optional<unsigned> DriverTable::newest_family(const DriverVersion& driver, OsKind os) const {
    std::optional<unsigned> best;
    for (const auto& f : families) {
        if (driver >= f.min_driver(os) && (!best || f.cuda_major > *best)) best = f.cuda_major;
    }
    return best;
}

bool TorchRelease::offers(std::string_view backend) const {
    if (backend == "cpu") return true;
    if (std::find(cuda.begin(), cuda.end(), backend) != cuda.end()) return true;
    if (std::find(cuda_experimental.begin(), cuda_experimental.end(), backend) !=
        cuda_experimental.end()) {
        return true;
    }
    if (backend == "xpu") return xpu;
    if (util::istarts_with(backend, "rocm")) {
        std::string_view v = backend.substr(4);
        return std::find(rocm.begin(), rocm.end(), v) != rocm.end();
    }
    return false;
}

bool ArchRow::applies_to(const ReleaseKey& torch) const {
    return torch >= torch_from && (!torch_to || torch <= *torch_to);
}

const ArchRow* ArchTable::find(std::string_view variant, const ReleaseKey& torch,
                               std::string_view arch) const {
    const std::string_view row_arch = arch == "aarch64" || arch == "arm64" ? "aarch64" : "";
    for (const auto& row : rows) {
        if (row.variant == variant && row.arch == row_arch && row.applies_to(torch)) return &row;
    }
    return nullptr;
}

Coverage coverage(const ArchRow& row, const ComputeCapability& device) {
    for (const auto& arch : row.sass) {
        if (arch.major == device.major && arch.minor <= device.minor) return Coverage::sass;
    }
    for (const auto& arch : row.ptx) {
        if (arch <= device) return Coverage::ptx;
    }
    return Coverage::none;
}

const TorchRelease* Tables::release(const ReleaseKey& key) const {
    for (const auto& r : releases) {
        if (r.torch == key) return &r;
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// YAML reading with located errors
// ---------------------------------------------------------------------------------------------

namespace {

// Thrown only inside this file and always caught by load(); carries the finished message.
using detail::TableError;

class TablesReader {
  public:
    explicit TablesReader(std::string_view name) : name_(name) {}

    [[noreturn]] void fail(const YAML::Node& node, const std::string& path,
                           const std::string& what) const {
        std::string where(name_);
        if (node.IsDefined()) {
            const YAML::Mark mark = node.Mark();
            if (mark.line >= 0) {
                where +=
                    ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
            }
        }
        throw TableError{where + ": " + (path.empty() ? "" : path + ": ") + what};
    }

    YAML::Node child(const YAML::Node& map, const char* key, const std::string& path,
                     bool required) const {
        if (!map.IsMap()) fail(map, path, "expected a mapping");
        YAML::Node value = map[key];
        if (!value.IsDefined() || value.IsNull()) {
            if (required) fail(map, path, std::string("missing key \"") + key + "\"");
            return YAML::Node(YAML::NodeType::Undefined);
        }
        return value;
    }

    std::string string(const YAML::Node& node, const std::string& path) const {
        if (!node.IsScalar()) fail(node, path, "expected a string");
        return node.Scalar();
    }

    std::optional<std::string> optional_string(const YAML::Node& map, const char* key,
                                               const std::string& path) const {
        YAML::Node v = child(map, key, path, false);
        if (!v.IsDefined()) return std::nullopt;
        return string(v, path + "." + key);
    }

    std::string required_string(const YAML::Node& map, const char* key,
                                const std::string& path) const {
        return string(child(map, key, path, true), path + "." + key);
    }

    std::vector<std::string> string_list(const YAML::Node& map, const char* key,
                                         const std::string& path, bool required) const {
        YAML::Node v = child(map, key, path, required);
        std::vector<std::string> out;
        if (!v.IsDefined()) return out;
        std::string p = path + "." + key;
        if (!v.IsSequence()) fail(v, p, "expected a list");
        for (std::size_t i = 0; i < v.size(); ++i) {
            out.push_back(string(v[i], p + "[" + std::to_string(i) + "]"));
        }
        return out;
    }

    double number(const YAML::Node& map, const char* key, const std::string& path) const {
        YAML::Node v = child(map, key, path, true);
        std::string p = path + "." + key;
        std::string text = string(v, p);
        double value = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value) ||
            value < 0) {
            fail(v, p, "expected a non-negative number, got \"" + text + "\"");
        }
        return value;
    }

    bool boolean(const YAML::Node& map, const char* key, const std::string& path) const {
        YAML::Node v = child(map, key, path, false);
        if (!v.IsDefined()) return false;
        std::string text = string(v, path + "." + key);
        if (text == "true") return true;
        if (text == "false") return false;
        fail(v, path + "." + key, "expected true or false, got \"" + text + "\"");
    }

    template <class T>
    T parsed(const YAML::Node& node, const std::string& path, Parsed<T> result) const {
        if (!result) fail(node, path, result.error().message);
        return std::move(*result);
    }

    YAML::Node sequence(const YAML::Node& root, const char* key) const {
        YAML::Node v = child(root, key, "", true);
        if (!v.IsSequence()) fail(v, key, "expected a list");
        return v;
    }

    void check_format(const YAML::Node& root) const {
        if (!root.IsMap()) fail(root, "", "expected a mapping at the top level");
        YAML::Node f = child(root, "format", "", true);
        if (string(f, "format") != "1")
            fail(f, "format", "unsupported format (this aitk-env reads format 1)");
    }

  private:
    std::string_view name_;
};

template <class T, class Fn>
Parsed<T> load(std::string_view yaml, std::string_view name, Fn&& body) {
    try {
        YAML::Node root = YAML::Load(std::string(yaml));
        TablesReader reader(name);
        return body(reader, root);
    } catch (const TableError& e) {
        return util::Unexpected(ParseError{e.message, {}, ParseError::no_position});
    } catch (const YAML::Exception& e) {
        std::string where(name);
        if (e.mark.line >= 0) {
            where +=
                ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
        }
        return util::Unexpected(ParseError{where + ": " + e.msg, {}, ParseError::no_position});
    } catch (const std::exception& e) {
        return util::Unexpected(
            ParseError{std::string(name) + ": " + e.what(), {}, ParseError::no_position});
    }
}

bool valid_cuda_variant(std::string_view v) {
    if (v.size() != 5 || v.substr(0, 2) != "cu") return false;
    return std::all_of(v.begin() + 2, v.end(), util::is_ascii_digit);
}

std::vector<ComputeCapability> capability_list(const TablesReader& r, const YAML::Node& map,
                                               const char* key, const std::string& path) {
    std::vector<ComputeCapability> out;
    std::vector<std::string> texts = r.string_list(map, key, path, true);
    YAML::Node list = map[key];
    for (std::size_t i = 0; i < texts.size(); ++i) {
        out.push_back(r.parsed(list[i], path + "." + key + "[" + std::to_string(i) + "]",
                               ComputeCapability::parse(texts[i])));
    }
    return out;
}

std::vector<HardwareProfile> profile_list(const TablesReader& r, const YAML::Node& list,
                                          const std::string& key) {
    std::vector<HardwareProfile> out;
    if (!list.IsSequence()) r.fail(list, key, "expected a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
        std::string path = key + "[" + std::to_string(i) + "]";
        const YAML::Node p = list[i];
        HardwareProfile profile;
        profile.id = r.required_string(p, "id", path);
        profile.description = r.optional_string(p, "description", path).value_or(profile.id);
        profile.min_ram_gib = r.number(p, "min_ram_gib", path);
        profile.min_vram_gib = r.number(p, "min_vram_gib", path);
        profile.source = r.optional_string(p, "source", path).value_or("");
        profile.unverified = r.string_list(p, "unverified", path, false);
        for (const auto& existing : out) {
            if (existing.id == profile.id)
                r.fail(p, path, "duplicate profile id \"" + profile.id + "\"");
        }
        out.push_back(std::move(profile));
    }
    return out;
}

}  // namespace

Parsed<DriverTable> parse_driver_table(std::string_view yaml, std::string_view name) {
    return load<DriverTable>(
        yaml, name, [](const TablesReader& r, const YAML::Node& root) -> Parsed<DriverTable> {
            r.check_format(root);
            DriverTable table;
            YAML::Node families = r.sequence(root, "families");
            for (std::size_t i = 0; i < families.size(); ++i) {
                std::string path = "families[" + std::to_string(i) + "]";
                const YAML::Node f = families[i];
                CudaFamily family;
                YAML::Node major = r.child(f, "cuda_major", path, true);
                family.cuda_major =
                    r.parsed(major, path + ".cuda_major",
                             CudaVersion::parse(r.string(major, path + ".cuda_major")))
                        .major;
                const YAML::Node mins = r.child(f, "min_driver", path, true);
                std::string mpath = path + ".min_driver";
                family.linux_min_driver =
                    r.parsed(mins["linux"], mpath + ".linux",
                             DriverVersion::parse(r.required_string(mins, "linux", mpath)));
                family.windows_min_driver =
                    r.parsed(mins["windows"], mpath + ".windows",
                             DriverVersion::parse(r.required_string(mins, "windows", mpath)));
                family.unverified = r.string_list(f, "unverified", path, false);
                family.source = r.required_string(f, "source", path);
                if (table.family(family.cuda_major)) {
                    r.fail(f, path, "duplicate family " + std::to_string(family.cuda_major));
                }
                table.families.push_back(std::move(family));
            }
            std::sort(table.families.begin(), table.families.end(),
                      [](const CudaFamily& a, const CudaFamily& b) {
                          return a.cuda_major > b.cuda_major;
                      });
            YAML::Node toolkits = r.child(root, "toolkit_drivers", "", false);
            if (toolkits.IsDefined()) {
                if (!toolkits.IsSequence()) r.fail(toolkits, "toolkit_drivers", "expected a list");
                for (std::size_t i = 0; i < toolkits.size(); ++i) {
                    std::string path = "toolkit_drivers[" + std::to_string(i) + "]";
                    const YAML::Node t = toolkits[i];
                    ToolkitDriver td;
                    td.cuda = r.parsed(t["cuda"], path + ".cuda",
                                       CudaVersion::parse(r.required_string(t, "cuda", path)));
                    if (auto l = r.optional_string(t, "linux", path)) {
                        td.linux_driver =
                            r.parsed(t["linux"], path + ".linux", DriverVersion::parse(*l));
                    }
                    if (auto w = r.optional_string(t, "windows", path)) {
                        td.windows_driver =
                            r.parsed(t["windows"], path + ".windows", DriverVersion::parse(*w));
                    }
                    table.toolkit_drivers.push_back(std::move(td));
                }
            }
            YAML::Node floors = r.child(root, "arch_min_drivers", "", false);
            if (floors.IsDefined()) {
                if (!floors.IsSequence()) r.fail(floors, "arch_min_drivers", "expected a list");
                for (std::size_t i = 0; i < floors.size(); ++i) {
                    std::string path = "arch_min_drivers[" + std::to_string(i) + "]";
                    const YAML::Node a = floors[i];
                    ArchDriverFloor floor;
                    floor.name = r.required_string(a, "name", path);
                    const std::string mpath = path + ".compute_capability_majors";
                    const bool exact = a["compute_capabilities"].IsDefined();
                    if (exact == a["compute_capability_majors"].IsDefined()) {
                        r.fail(a, path,
                               "expected either compute_capability_majors or "
                               "compute_capabilities");
                    }
                    const std::string cpath = path + ".compute_capabilities";
                    const auto exact_list = r.string_list(a, "compute_capabilities", path, exact);
                    for (std::size_t k = 0; k < exact_list.size(); ++k) {
                        const YAML::Node node = a["compute_capabilities"][k];
                        const auto cc = r.parsed(node, cpath + "[" + std::to_string(k) + "]",
                                                 ComputeCapability::parse(exact_list[k]));
                        const bool listed = std::any_of(
                            table.arch_floors.begin(), table.arch_floors.end(),
                            [&](const ArchDriverFloor& f) {
                                return std::find(f.capabilities.begin(), f.capabilities.end(),
                                                 cc) != f.capabilities.end();
                            });
                        if (listed ||
                            std::find(floor.capabilities.begin(), floor.capabilities.end(), cc) !=
                                floor.capabilities.end()) {
                            r.fail(node, cpath,
                                   "compute capability " + exact_list[k] + " is listed twice");
                        }
                        floor.capabilities.push_back(cc);
                    }
                    const auto majors = r.string_list(a, "compute_capability_majors", path, !exact);
                    for (std::size_t k = 0; k < majors.size(); ++k) {
                        const YAML::Node node = a["compute_capability_majors"][k];
                        const auto cc = r.parsed(node, mpath + "[" + std::to_string(k) + "]",
                                                 ComputeCapability::parse(majors[k] + ".0"));
                        const bool major_listed =
                            std::any_of(table.arch_floors.begin(), table.arch_floors.end(),
                                        [&](const ArchDriverFloor& f) {
                                            return std::find(f.capability_majors.begin(),
                                                             f.capability_majors.end(),
                                                             cc.major) != f.capability_majors.end();
                                        });
                        if (major_listed || std::find(floor.capability_majors.begin(),
                                                      floor.capability_majors.end(),
                                                      cc.major) != floor.capability_majors.end()) {
                            r.fail(node, mpath,
                                   "compute capability " + majors[k] + ".x is listed twice");
                        }
                        floor.capability_majors.push_back(cc.major);
                    }
                    const YAML::Node mins = r.child(a, "min_driver", path, true);
                    const std::string dpath = path + ".min_driver";
                    floor.linux_min_driver =
                        r.parsed(mins["linux"], dpath + ".linux",
                                 DriverVersion::parse(r.required_string(mins, "linux", dpath)));
                    floor.windows_min_driver =
                        r.parsed(mins["windows"], dpath + ".windows",
                                 DriverVersion::parse(r.required_string(mins, "windows", dpath)));
                    if (auto c = r.optional_string(a, "cuda", path))
                        floor.cuda = r.parsed(a["cuda"], path + ".cuda", CudaVersion::parse(*c));
                    if (auto c = r.optional_string(a, "min_build_cuda", path)) {
                        floor.min_build_cuda = r.parsed(
                            a["min_build_cuda"], path + ".min_build_cuda", CudaVersion::parse(*c));
                    }
                    floor.source = r.required_string(a, "source", path);
                    table.arch_floors.push_back(std::move(floor));
                }
            }
            return table;
        });
}

Parsed<std::vector<TorchRelease>> parse_torch_releases(std::string_view yaml, std::string_view name,
                                                       std::string* index_url) {
    return load<std::vector<TorchRelease>>(
        yaml, name,
        [index_url](const TablesReader& r,
                    const YAML::Node& root) -> Parsed<std::vector<TorchRelease>> {
            r.check_format(root);
            if (index_url) *index_url = r.required_string(root, "index_url", "");
            std::vector<TorchRelease> out;
            YAML::Node releases = r.sequence(root, "releases");
            for (std::size_t i = 0; i < releases.size(); ++i) {
                std::string path = "releases[" + std::to_string(i) + "]";
                const YAML::Node n = releases[i];
                TorchRelease rel;
                rel.torch = r.parsed(n["torch"], path + ".torch",
                                     ReleaseKey::parse(r.required_string(n, "torch", path)));
                rel.cuda = r.string_list(n, "cuda", path, true);
                rel.cuda_experimental = r.string_list(n, "cuda_experimental", path, false);
                for (const auto* list : {&rel.cuda, &rel.cuda_experimental}) {
                    for (const auto& v : *list) {
                        if (!valid_cuda_variant(v)) {
                            r.fail(n, path,
                                   "\"" + v + "\" is not a CUDA backend name (cuXYZ, e.g. cu126)");
                        }
                    }
                }
                rel.rocm = r.string_list(n, "rocm", path, false);
                rel.xpu = r.boolean(n, "xpu", path);
                rel.unverified = r.string_list(n, "unverified", path, false);
                rel.source = r.required_string(n, "source", path);
                if (!out.empty() && !(out.back().torch < rel.torch)) {
                    r.fail(n, path, "releases must be listed in ascending order without repeats");
                }
                out.push_back(std::move(rel));
            }
            return out;
        });
}

Parsed<ArchTable> parse_arch_table(std::string_view yaml, std::string_view name) {
    return load<ArchTable>(
        yaml, name, [](const TablesReader& r, const YAML::Node& root) -> Parsed<ArchTable> {
            r.check_format(root);
            ArchTable table;
            YAML::Node rows = r.sequence(root, "variants");
            for (std::size_t i = 0; i < rows.size(); ++i) {
                std::string path = "variants[" + std::to_string(i) + "]";
                const YAML::Node n = rows[i];
                ArchRow row;
                row.variant = r.required_string(n, "variant", path);
                row.arch = r.optional_string(n, "arch", path).value_or("");
                if (!row.arch.empty() && row.arch != "aarch64") {
                    r.fail(n["arch"], path + ".arch",
                           "\"" + row.arch +
                               "\" is not a build architecture here (omit it for x86_64, or "
                               "write aarch64)");
                }
                if (!valid_cuda_variant(row.variant)) {
                    r.fail(
                        n, path,
                        "\"" + row.variant + "\" is not a CUDA backend name (cuXYZ, e.g. cu126)");
                }
                row.torch_from =
                    r.parsed(n["torch_from"], path + ".torch_from",
                             ReleaseKey::parse(r.required_string(n, "torch_from", path)));
                if (auto to = r.optional_string(n, "torch_to", path)) {
                    row.torch_to =
                        r.parsed(n["torch_to"], path + ".torch_to", ReleaseKey::parse(*to));
                    if (*row.torch_to < row.torch_from)
                        r.fail(n, path, "torch_to is before torch_from");
                }
                row.sass = capability_list(r, n, "sass", path);
                row.ptx = capability_list(r, n, "ptx", path);
                row.source = r.required_string(n, "source", path);
                row.unverified = r.optional_string(n, "unverified", path).value_or("");
                for (const auto& other : table.rows) {
                    bool overlap =
                        other.variant == row.variant && other.arch == row.arch &&
                        row.torch_from <= other.torch_to.value_or(ReleaseKey{~0u, ~0u}) &&
                        other.torch_from <= row.torch_to.value_or(ReleaseKey{~0u, ~0u});
                    if (overlap) r.fail(n, path, "overlaps another row for " + row.variant);
                }
                table.rows.push_back(std::move(row));
            }
            return table;
        });
}

Parsed<HardwareProfiles> parse_hardware_profiles(std::string_view yaml, std::string_view name) {
    return load<HardwareProfiles>(
        yaml, name, [](const TablesReader& r, const YAML::Node& root) -> Parsed<HardwareProfiles> {
            r.check_format(root);
            HardwareProfiles hw;
            hw.profiles = profile_list(r, r.sequence(root, "profiles"), "profiles");
            YAML::Node platforms = r.child(root, "platforms", "", true);
            if (!platforms.IsMap()) r.fail(platforms, "platforms", "expected a mapping");
            for (const auto& entry : platforms) {
                std::string os = r.string(entry.first, "platforms");
                std::string path = "platforms." + os;
                PlatformSupport support;
                support.status = r.required_string(entry.second, "status", path);
                if (support.status != "ok" && support.status != "warn") {
                    r.fail(entry.second, path + ".status", "expected ok or warn");
                }
                support.message = r.required_string(entry.second, "message", path);
                hw.platforms[os] = std::move(support);
            }
            YAML::Node disk = r.child(root, "disk", "", true);
            hw.disk_warn_below_gib = r.number(disk, "warn_below_gib", "disk");
            hw.disk_fail_below_gib = r.number(disk, "fail_below_gib", "disk");
            return hw;
        });
}

Parsed<ManifestHardware> parse_manifest_hardware(std::string_view yaml, std::string_view name) {
    return load<ManifestHardware>(
        yaml, name, [](const TablesReader& r, const YAML::Node& root) -> Parsed<ManifestHardware> {
            ManifestHardware out;
            if (!root.IsDefined() || root.IsNull()) return out;
            if (!root.IsMap()) r.fail(root, "", "expected a mapping at the top level");
            YAML::Node torch = r.child(root, "torch", "", false);
            if (torch.IsDefined()) {
                if (torch.IsScalar()) {
                    out.torch_version = torch.Scalar();
                } else {
                    out.torch_version = r.optional_string(torch, "version", "torch");
                    out.preferred_backends = r.string_list(torch, "backends", "torch", false);
                }
                if (out.torch_version) {
                    std::string_view v = util::trim(*out.torch_version);
                    if (v.substr(0, 2) == "==") v = util::trim(v.substr(2));
                    out.torch_version = std::string(v);
                }
            }
            YAML::Node profiles = r.child(root, "hardware_profiles", "", false);
            if (profiles.IsDefined()) out.profiles = profile_list(r, profiles, "hardware_profiles");
            return out;
        });
}

Parsed<Tables> builtin_tables() {
    Tables t;
    auto drivers = parse_driver_table(embedded::cuda_drivers_yaml(), "manifests/cuda-drivers.yaml");
    if (!drivers) return util::Unexpected(drivers.error());
    t.drivers = std::move(*drivers);
    auto releases = parse_torch_releases(embedded::torch_variants_yaml(),
                                         "manifests/torch-variants.yaml", &t.torch_index_url);
    if (!releases) return util::Unexpected(releases.error());
    t.releases = std::move(*releases);
    auto archs = parse_arch_table(embedded::cuda_archs_yaml(), "manifests/cuda-archs.yaml");
    if (!archs) return util::Unexpected(archs.error());
    t.archs = std::move(*archs);
    auto hw = parse_hardware_profiles(embedded::hardware_profiles_yaml(),
                                      "manifests/hardware-profiles.yaml");
    if (!hw) return util::Unexpected(hw.error());
    t.hardware = std::move(*hw);
    return t;
}

}  // namespace aitk::platform
