#include "aitk/platform/backend.hpp"

#include <algorithm>

#include "aitk/util/strings.hpp"

namespace aitk::platform {

BackendRequest BackendRequest::ai_toolkit_default() {
    BackendRequest r;
    r.torch = *pep::Version::parse("2.13.0");
    r.preferred = {"cu130", "cu126"};
    return r;
}

namespace {

// "cu126" → 126: the toolkit's major and minor digits.
std::optional<unsigned> cuda_number_of(std::string_view backend) {
    if (backend.size() < 4 || backend.size() > 5 || backend.substr(0, 2) != "cu")
        return std::nullopt;
    unsigned n = 0;
    for (char c : backend.substr(2)) {
        if (!util::is_ascii_digit(c)) return std::nullopt;
        n = n * 10 + static_cast<unsigned>(c - '0');
    }
    return n;
}

}  // namespace

std::optional<unsigned> cuda_family_of(std::string_view backend) {
    auto n = cuda_number_of(backend);
    if (!n) return std::nullopt;
    return *n / 10;  // cu126 → 12, cu118 → 11, cu92 → 9
}

std::optional<CudaVersion> cuda_version_of(std::string_view backend) {
    auto n = cuda_number_of(backend);
    if (!n) return std::nullopt;
    return CudaVersion{*n / 10, *n % 10};  // cu126 → 12.6, cu130 → 13.0
}

bool runs_natively(const HostInfo& host, const HardwareProbe& probe, std::string_view backend,
                   const Tables& tables) {
    auto cuda = cuda_version_of(backend);
    if (!cuda || !probe.nvidia) return false;
    const auto& nv = *probe.nvidia;
    if (nv.driver_version) {
        if (const DriverVersion* shipped = tables.drivers.toolkit_driver(*cuda, host.os)) {
            // A driver given as a branch ("580", an override) is compared as a branch: its
            // releases ship at least that toolkit's driver (580.65.06).
            const auto& have = nv.driver_version->components();
            const auto& need = shipped->components();
            for (std::size_t i = 0; i < have.size() && i < need.size(); ++i) {
                if (have[i] != need[i]) return have[i] > need[i];
            }
            return true;
        }
    }
    return nv.cuda_version && *nv.cuda_version >= *cuda;
}

std::vector<std::size_t> rank_by_driver_fit(const std::vector<std::string>& builds,
                                            const HostInfo& host, const HardwareProbe& probe,
                                            const Tables& tables) {
    std::vector<std::size_t> order(builds.size());
    std::vector<std::size_t> cuda_slots, native, compatible;
    for (std::size_t i = 0; i < builds.size(); ++i) {
        order[i] = i;
        if (!cuda_family_of(builds[i])) continue;
        cuda_slots.push_back(i);
        (runs_natively(host, probe, builds[i], tables) ? native : compatible).push_back(i);
    }
    // Through compatibility the oldest toolkit first: it is the nearest to the driver.
    std::stable_sort(compatible.begin(), compatible.end(), [&](std::size_t a, std::size_t b) {
        return *cuda_version_of(builds[a]) < *cuda_version_of(builds[b]);
    });
    std::size_t slot = 0;
    for (const auto* group : {&native, &compatible}) {
        for (std::size_t i : *group)
            order[cuda_slots[slot++]] = i;
    }
    return order;
}

namespace {

std::string gpu_label(std::size_t index, const GpuDevice& gpu) {
    std::string label = "GPU " + std::to_string(index) + " (";
    if (!gpu.name.empty()) label += gpu.name + ", ";
    if (!gpu.compute_capability) return label + "compute capability unknown)";
    label += gpu.compute_capability->sm();
    // A capability looked up by name is a guess about the card: the reason says so.
    if (gpu.compute_capability_source == CapabilitySource::model_name_table)
        label += " from the model name";
    return label + ")";
}

}  // namespace

CoverageReport check_coverage(const std::vector<GpuDevice>& nvidia_gpus, std::string_view variant,
                              const ReleaseKey& torch, const ArchTable& archs,
                              std::string_view arch) {
    CoverageReport report;
    const ArchRow* row = archs.find(variant, torch, arch);
    for (std::size_t i = 0; i < nvidia_gpus.size(); ++i) {
        const auto& gpu = nvidia_gpus[i];
        if (!gpu.compute_capability || !row) {
            report.unknown = true;
            continue;
        }
        if (coverage(*row, *gpu.compute_capability) == Coverage::none) {
            report.all_covered = false;
            std::string what = gpu.compute_capability->sm() + " (GPU " + std::to_string(i);
            if (!gpu.name.empty()) what += ", " + gpu.name;
            if (gpu.compute_capability_source == CapabilitySource::model_name_table)
                what += ", capability from the model name";
            report.uncovered.push_back(what + ")");
        }
    }
    return report;
}

namespace {

std::string family_text(unsigned major) {
    return std::to_string(major) + ".x";
}

std::string list_text(const std::vector<std::string>& items) {
    return items.empty() ? std::string("none") : util::join(items, ", ");
}

// Everything the decision needs, computed once.
class Chooser {
  public:
    // The choice for one torch release, `key`; `torch_text` names it in messages.
    Chooser(const HostInfo& host, const HardwareProbe& probe, const BackendRequest& request,
            const Tables& tables, const ReleaseKey& key, std::string torch_text)
        : host_(host),
          probe_(probe),
          request_(request),
          tables_(tables),
          key_(key),
          release_(tables.release(key_)),
          nvidia_gpus_(probe.gpus_of(GpuVendor::nvidia)),
          torch_text_(std::move(torch_text)),
          usable_gpu_(has_usable_gpu(host, probe)) {}

    BackendChoice choose() {
        BackendChoice c = decide();
        if (c.backend) {
            c.release = key_;
            for (const auto& b : c.candidates)
                c.pairs.push_back({key_, b});
        }
        for (auto& v : c.verdicts)
            v.release = key_;
        return c;
    }

    BackendVerdict judge(std::string_view backend, bool cpu_forced) const {
        BackendVerdict v = evaluate(std::string(backend), cpu_forced);
        v.release = key_;
        return v;
    }

  private:
    BackendChoice decide() {
        if (!release_) return unknown_release();
        if (request_.fixed && request_.fixed_strict && request_.forced &&
            *request_.forced != *request_.fixed) {
            return forced_against_pin();
        }
        if (request_.forced) return forced();
        if (request_.fixed) return fixed();
        return automatic();
    }

    std::string fallback() const {
        return host_.os == OsKind::macos && host_.arch == "arm64" && probe_.has(GpuVendor::apple)
                   ? "mps"
                   : "cpu";
    }

    bool offers(const std::string& backend) const {
        if (backend == "mps") return host_.os == OsKind::macos;
        return release_->offers(backend);
    }

    std::vector<std::string> offered_list() const {
        std::vector<std::string> out = release_->cuda;
        for (const auto& v : release_->cuda_experimental)
            out.push_back(v + " (experimental)");
        for (const auto& v : release_->rocm)
            out.push_back("rocm" + v);
        if (release_->xpu) out.push_back("xpu");
        out.push_back("cpu");
        return out;
    }

    std::vector<std::string> cuda_order(std::vector<std::string>& notes) const {
        std::vector<std::string> out;
        for (const auto& p : request_.preferred) {
            if (!cuda_family_of(p)) continue;
            if (release_->offers(p)) {
                out.push_back(p);
            } else {
                notes.push_back(p + " (preferred) is not offered by " + torch_text_);
            }
        }
        if (!out.empty()) return out;
        auto by_number_desc = [](std::vector<std::string> v) {
            std::sort(v.begin(), v.end(), std::greater<>());
            return v;
        };
        out = by_number_desc(release_->cuda);
        for (const auto& v : by_number_desc(release_->cuda_experimental))
            out.push_back(v);
        return out;
    }

    std::vector<std::string> rocm_order() const {
        std::vector<std::string> out;
        for (const auto& p : request_.preferred) {
            if (p.rfind("rocm", 0) == 0 && release_->offers(p)) out.push_back(p);
        }
        if (!out.empty()) return out;
        for (auto it = release_->rocm.rbegin(); it != release_->rocm.rend(); ++it)
            out.push_back("rocm" + *it);
        return out;
    }

    std::string driver_words() const {
        if (!probe_.nvidia) return "no NVIDIA driver found";
        const auto& nv = *probe_.nvidia;
        std::string src = std::string(source_name(nv.source));
        if (nv.driver_version) {
            auto fam = tables_.drivers.newest_family(*nv.driver_version, host_.os);
            std::string text = "driver " + nv.driver_version->text() + " (" + src + ")";
            if (fam) return text + " supports CUDA ≤ " + family_text(*fam);
            const CudaFamily* oldest =
                tables_.drivers.families.empty() ? nullptr : &tables_.drivers.families.back();
            return text + " is older than every CUDA family torch builds use" +
                   (oldest ? " (" + family_text(oldest->cuda_major) + " needs ≥ " +
                                 oldest->min_driver(host_.os).text() + ")"
                           : std::string());
        }
        if (nv.cuda_version) {
            return "CUDA driver API " + nv.cuda_version->to_string() + " (" + src +
                   ") supports CUDA ≤ " + family_text(nv.cuda_version->major);
        }
        return "NVIDIA driver of unknown version (" + src + ")";
    }

    // "driver 535.154.05", or "the driver (CUDA 12.2)" when only its CUDA level is known.
    std::string driver_name() const {
        if (probe_.nvidia && probe_.nvidia->driver_version)
            return "driver " + probe_.nvidia->driver_version->text();
        if (probe_.nvidia && probe_.nvidia->cuda_version)
            return "the driver (CUDA " + probe_.nvidia->cuda_version->to_string() + ")";
        return "the driver";
    }

    // The floor the driver is below for some GPU (a Blackwell card before R570), with the GPUs;
    // nullptr when the driver knows every GPU (or the floors do not apply).
    const ArchDriverFloor* driver_floor_missed(std::vector<std::string>* gpus = nullptr) const {
        if (!probe_.nvidia) return nullptr;
        const auto& nv = *probe_.nvidia;
        const ArchDriverFloor* worst = nullptr;
        for (std::size_t i = 0; i < nvidia_gpus_.size(); ++i) {
            const auto& cc = nvidia_gpus_[i].compute_capability;
            const ArchDriverFloor* floor = cc ? tables_.drivers.arch_floor(*cc) : nullptr;
            if (!floor) continue;
            const bool too_old =
                nv.driver_version
                    ? *nv.driver_version < floor->min_driver(host_.os)
                    : nv.cuda_version && floor->cuda && *nv.cuda_version < *floor->cuda;
            if (!too_old) continue;
            if (gpus) gpus->push_back(gpu_label(i, nvidia_gpus_[i]));
            if (!worst || worst->min_driver(host_.os) < floor->min_driver(host_.os)) worst = floor;
        }
        return worst;
    }

    // "≥ 570 (the first driver for Blackwell GPUs: GPU 0 (…, sm_120))"
    std::string floor_words(const ArchDriverFloor& floor,
                            const std::vector<std::string>& gpus) const {
        return "≥ " + floor.min_driver(host_.os).text() + " (the first driver for " + floor.name +
               " GPUs: " + util::join(gpus, ", ") + ")";
    }

    // The driver the build's toolkit shipped with, in words: "CUDA 12.6 came with 560.28.03".
    std::string shipped_words(const std::string& backend) const {
        auto cuda = cuda_version_of(backend);
        if (!cuda) return backend;
        const DriverVersion* shipped = tables_.drivers.toolkit_driver(*cuda, host_.os);
        std::string out = "CUDA " + cuda->to_string();
        if (shipped) return out + " came with " + shipped->text();
        if (probe_.nvidia && probe_.nvidia->cuda_version) {
            return out + " is newer than the driver's CUDA " +
                   probe_.nvidia->cuda_version->to_string();
        }
        return out + "'s driver is not in aitk-env's table";
    }

    // Whether `backend`'s builds of `torch` carry kernels for every GPU here, as this machine's
    // architecture builds them, and were made with a CUDA toolkit each GPU is supported from
    // (GB10: CUDA 13.0); a GPU below that limit counts as uncovered.
    CoverageReport covers(const std::string& backend, const ReleaseKey& torch) const {
        CoverageReport cov =
            check_coverage(nvidia_gpus_, backend, torch, tables_.archs, host_.arch);
        const auto build_cuda = cuda_version_of(backend);
        for (std::size_t i = 0; build_cuda && i < nvidia_gpus_.size(); ++i) {
            const auto& cc = nvidia_gpus_[i].compute_capability;
            const ArchDriverFloor* floor = cc ? tables_.drivers.arch_floor(*cc) : nullptr;
            if (!floor || !floor->min_build_cuda || !(*build_cuda < *floor->min_build_cuda))
                continue;
            const auto& gpu = nvidia_gpus_[i];
            cov.all_covered = false;
            cov.uncovered.push_back(cc->sm() + " (GPU " + std::to_string(i) +
                                    (gpu.name.empty() ? "" : ", " + gpu.name) + "; " + floor->name +
                                    " GPUs run CUDA ≥ " + floor->min_build_cuda->to_string() +
                                    " builds only)");
        }
        return cov;
    }

    // Whether the driver runs CUDA family `fam`; `why` says what is missing.
    bool driver_runs(unsigned fam, std::string& why) const {
        if (!probe_.nvidia) {
            why = "no NVIDIA driver found";
            return false;
        }
        const CudaFamily* family = tables_.drivers.family(fam);
        if (!family) {
            why = "CUDA " + family_text(fam) + " is not in aitk-env's driver table";
            return false;
        }
        const auto& nv = *probe_.nvidia;
        if (nv.driver_version && *nv.driver_version < family->min_driver(host_.os)) {
            why = "needs driver ≥ " + family->min_driver(host_.os).text() + " (CUDA " +
                  family_text(fam) + ")";
            return false;
        }
        if (nv.cuda_version && nv.cuda_version->major < fam) {
            why = "needs CUDA " + family_text(fam) + " but the driver reports CUDA " +
                  nv.cuda_version->to_string();
            return false;
        }
        if (!nv.driver_version && !nv.cuda_version) {
            why = "the driver's version is unknown";
            return false;
        }
        // A GPU the driver does not know runs no CUDA build at all.
        std::vector<std::string> gpus;
        if (const ArchDriverFloor* floor = driver_floor_missed(&gpus)) {
            why = "needs driver " + floor_words(*floor, gpus);
            return false;
        }
        return true;
    }

    // `cpu_forced`: CPU torch was asked for by name, so a GPU does not rule it out.
    BackendVerdict evaluate(const std::string& backend, bool cpu_forced = false) const {
        BackendVerdict v{backend, false, {}, std::nullopt};
        if (backend == "cpu") {
            v.runs = !usable_gpu_ || cpu_forced;
            v.why =
                v.runs ? "runs anywhere"
                       : "CPU build on a machine with " + gpu_words() + ": only with --backend cpu";
        } else if (backend == "mps") {
            v.runs = host_.os == OsKind::macos && host_.arch == "arm64" && !probe_.gpus_ignored;
            v.why = v.runs ? "Apple Silicon" : "MPS needs an Apple Silicon Mac (arm64 macOS)";
        } else if (auto fam = cuda_family_of(backend)) {
            if (host_.os == OsKind::macos) {
                v.why = "there are no CUDA builds for macOS";
            } else if (jetson_board()) {
                v.why = "is built for aarch64 servers (SBSA), not for the integrated GPU of " +
                        jetson_words();
            } else {
                // Both conditions are reported, so a refusal names everything that is missing.
                std::string driver_why;
                bool driver_ok = driver_runs(*fam, driver_why);
                CoverageReport cov = covers(backend, key_);
                std::string coverage_why =
                    cov.all_covered ? "" : "has no kernels for " + util::join(cov.uncovered, ", ");
                if (!driver_ok && !cov.all_covered) {
                    v.why = (driver_why.rfind("needs", 0) == 0 ? driver_why
                                                               : "cannot run: " + driver_why) +
                            " and " + coverage_why;
                } else if (!driver_ok) {
                    v.why = driver_why;
                } else if (!cov.all_covered) {
                    v.why = coverage_why;
                } else {
                    v.runs = true;
                    v.why = cov.unknown || nvidia_gpus_.empty()
                                ? "driver is new enough; GPU coverage not checked"
                                : "runs";
                    if (!runs_natively(host_, probe_, backend, tables_)) {
                        v.why += " (through CUDA minor-version compatibility: " +
                                 shipped_words(backend) + ")";
                    }
                }
            }
        } else if (backend.rfind("rocm", 0) == 0) {
            if (host_.os != OsKind::linux_os) {
                v.why = "ROCm builds are Linux only";
            } else if (!probe_.has(GpuVendor::amd)) {
                v.why = "no AMD GPU found";
            } else {
                v.runs = true;
                v.why = "AMD GPU present (gfx support of the build not verified by aitk-env)";
            }
        } else if (backend == "xpu") {
            v.runs = probe_.has(GpuVendor::intel) && host_.os != OsKind::macos;
            v.why = v.runs ? "discrete Intel GPU present" : "no discrete Intel GPU found";
        } else {
            v.why = "unknown backend";
        }
        return v;
    }

    BackendChoice unknown_release() const {
        BackendChoice c;
        std::string known;
        if (!tables_.releases.empty()) {
            known = tables_.releases.front().torch.to_string() + " … " +
                    tables_.releases.back().torch.to_string();
        }
        std::string what =
            torch_text_ + " is not in aitk-env's backend table (it knows " + known + ")";
        if (request_.forced && request_.force) {
            c.forced = true;
            c.backend = *request_.forced;
            c.candidates = {*request_.forced};
            c.reason = what + "; " + request_.forced_by + " " + *request_.forced +
                       " with --force → " + *request_.forced;
            return c;
        }
        c.reason = what + " → refused";
        c.fix = "use a torch release from " + known +
                ", or name the backend with --backend and add --force";
        return c;
    }

    BackendChoice forced() const {
        BackendChoice c;
        c.forced = true;
        const std::string& f = *request_.forced;
        c.candidates = {f};
        std::string by = request_.forced_by + " " + f;
        if (!offers(f)) {
            c.candidates.clear();
            c.reason = by + ", but " + torch_text_ + " has no " + f + " build (it offers " +
                       list_text(offered_list()) + ") → refused";
            c.fix = "choose one of the backends " + torch_text_ + " offers";
            return c;
        }
        BackendVerdict v = evaluate(f, true);
        c.verdicts.push_back(v);
        if (v.runs) {
            c.backend = f;
            c.reason = by + " (" + v.why + ") → " + f;
            return c;
        }
        if (request_.force) {
            c.backend = f;
            c.reason = by + " with --force although " + f + " " + verb(v.why) + " here → " + f;
            c.fix =
                "this environment will not run on this machine's GPU; it is meant for another "
                "machine";
            return c;
        }
        BackendRequest automatic_request = request_;
        automatic_request.forced.reset();
        BackendChoice auto_choice =
            Chooser(host_, probe_, automatic_request, tables_, key_, torch_text_).choose();
        c.candidates.clear();
        c.reason = by + ", but " + f + " " + verb(v.why) + " on this machine → refused";
        c.fix = "drop " + request_.forced_by + " (detection picks " +
                (auto_choice.backend ? *auto_choice.backend : std::string("nothing")) +
                "), or add --force to use " + f + " anyway (e.g. for another machine)";
        return c;
    }

    // --backend B against a pin of another build (torch==2.7.0+cu128): that build is only on
    // its own index, so the two cannot both hold.
    BackendChoice forced_against_pin() const {
        BackendChoice c;
        c.forced = true;
        c.reason = request_.forced_by + " " + *request_.forced + ", but " + request_.fixed_by +
                   " pins the " + *request_.fixed + " build → refused";
        c.fix = "drop " + request_.forced_by + " to use " + *request_.fixed +
                ", or change the pin to the " + *request_.forced + " build";
        return c;
    }

    // The inputs name one backend: it is used where it runs, and refused (never replaced)
    // where it does not.
    BackendChoice fixed() const {
        BackendChoice c;
        const std::string& f = *request_.fixed;
        std::string by = request_.fixed_by + " asks for " + f;
        if (!offers(f)) {
            c.reason = by + ", but " + torch_text_ + " has no " + f + " build (it offers " +
                       list_text(offered_list()) + ") → refused";
            c.fix = "pin a torch release that has a " + f + " build";
            return c;
        }
        BackendVerdict v = evaluate(f);
        c.verdicts.push_back(v);
        if (v.runs) {
            c.backend = f;
            c.candidates = {f};
            c.reason = (nvidia_machine() ? driver_words() + "; " : std::string()) + by + " (" +
                       (cuda_family_of(f) ? coverage_words(f) : v.why) + ") → " + f;
            return c;
        }
        c.reason = (nvidia_machine() ? driver_words() + "; " : std::string()) + by + ", but " + f +
                   " " + verb(v.why) + " on this machine → refused";
        if (f == "cpu") {
            c.fix =
                "pass --backend cpu to install the CPU build on this GPU machine, or use a "
                "GPU build (e.g. --backend " +
                best_gpu_backend() + ")";
        } else if (cuda_family_of(f) && nvidia_machine()) {
            c.fix = nvidia_fix({f});
        } else {
            c.fix = "run it on a machine with a GPU " + f + " supports, or add --backend " + f +
                    " --force to install it anyway";
        }
        return c;
    }

    // The GPU build detection would pick without the inputs' backend, for hints ("cu130").
    std::string best_gpu_backend() const {
        BackendRequest automatic_request = request_;
        automatic_request.fixed.reset();
        automatic_request.forced.reset();
        BackendChoice c =
            Chooser(host_, probe_, automatic_request, tables_, key_, torch_text_).choose();
        return c.backend && *c.backend != "cpu" ? *c.backend : std::string("cu130");
    }

    bool nvidia_machine() const {
        return !nvidia_gpus_.empty() || jetson_board() ||
               (probe_.nvidia && probe_.nvidia->source == NvidiaSource::override_env);
    }

    // A Jetson whose JetPack predates the server (SBSA) builds: Orin, Xavier (L4T R35, R36).
    bool jetson_board() const { return host_.jetson && !host_.jetson->runs_sbsa_builds(); }

    // "Jetson AGX Orin Developer Kit (L4T R36.4.3, JetPack 6)"
    std::string jetson_words() const {
        const auto& j = *host_.jetson;
        std::string out = j.model.empty() ? "this Jetson" : j.model;
        std::vector<std::string> what;
        if (!j.l4t.empty()) what.push_back("L4T R" + j.l4t);
        if (!j.jetpack().empty()) what.push_back(j.jetpack());
        return out + (what.empty() ? "" : " (" + util::join(what, ", ") + ")");
    }

    // Where a Jetson's torch comes from: NVIDIA builds it per JetPack, outside
    // download.pytorch.org, and aitk-env reads it as one more backend index.
    std::string jetson_fix() const {
        const unsigned l4t = host_.jetson->l4t_major;
        const std::string jp = l4t == 35 ? "jp5" : "jp6";
        const std::string cuda = l4t == 35 ? "cu114" : "cu126";
        return "install JetPack's own torch: NVIDIA publishes it per JetPack release "
               "(https://developer.download.nvidia.com/compute/redist/jp/, and the Jetson AI Lab "
               "index https://pypi.jetson-ai-lab.io/" +
               jp + "/" + cuda +
               "); point aitk-env at it with --torch-index-url https://pypi.jetson-ai-lab.io/" +
               jp + " --backend " + cuda + " --force (backend " + cuda +
               " is then read from <URL>/" + cuda +
               "/), or use --backend cpu to run without the GPU";
    }

    // "GPU 0 (NVIDIA GeForce RTX 3090)" or "an AMD GPU (gfx1100)": what rules CPU torch out.
    std::string gpu_words() const {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < nvidia_gpus_.size(); ++i) {
            names.push_back(
                "GPU " + std::to_string(i) +
                (nvidia_gpus_[i].name.empty() ? "" : " (" + nvidia_gpus_[i].name + ")"));
        }
        for (const auto& g : probe_.gpus_of(GpuVendor::amd))
            names.push_back("an AMD GPU (" + g.gfx_target + ")");
        if (names.empty() && host_.jetson) return "the integrated GPU of " + jetson_words();
        if (names.empty()) return "an NVIDIA driver";
        return util::join(names, ", ");
    }

    // "needs driver ≥ 580" reads after the backend name; a bare fact gets "cannot run: ".
    static std::string verb(const std::string& why) {
        if (why.rfind("needs", 0) == 0 || why.rfind("has no", 0) == 0) return why;
        return "cannot run: " + why;
    }

    BackendChoice automatic() const {
        BackendChoice c;
        std::vector<std::string> parts;
        std::string fb = fallback();
        if (probe_.gpus_ignored) {
            c.candidates = {"cpu"};
            c.backend = "cpu";
            c.reason = "AITK_ENV_NO_GPU is set: every GPU is ignored; " + torch_text_ + " → cpu";
            return c;
        }

        std::vector<std::string> notes;
        if (nvidia_machine()) {
            parts.push_back(driver_words());
            std::string offered = torch_text_ + " offers " + list_text(release_->cuda);
            if (!release_->cuda_experimental.empty()) {
                offered += " (experimental: " + list_text(release_->cuda_experimental) + ")";
            }
            parts.push_back(offered);
            std::vector<std::string> order = cuda_order(notes);
            for (const auto& n : notes)
                parts.push_back(n);
            if (!request_.preferred.empty()) parts.push_back("preferred order " + list_text(order));
            std::vector<std::string> runnable;
            for (const auto& b : order) {
                c.verdicts.push_back(evaluate(b));
                if (c.verdicts.back().runs) runnable.push_back(b);
            }
            if (runnable.empty()) {
                for (const auto& v : c.verdicts)
                    parts.push_back(v.backend + " " + v.why);
                parts.back() += " → refused";
                c.reason = util::join(parts, "; ");
                c.fix = nvidia_fix(order);
                return c;
            }
            for (std::size_t i : rank_by_driver_fit(runnable, host_, probe_, tables_))
                c.candidates.push_back(runnable[i]);
            const std::string chosen_cuda = c.candidates.front();
            for (const auto& v : c.verdicts) {
                if (v.backend == chosen_cuda) break;
                if (!v.runs) parts.push_back(v.backend + " " + v.why);
            }
            if (auto note = driver_fit_note(runnable, chosen_cuda)) parts.push_back(*note);
            parts.push_back(coverage_words(chosen_cuda) + " → " + chosen_cuda);
            c.backend = chosen_cuda;
        } else if (probe_.nvidia) {
            parts.push_back(driver_words() + ", but no NVIDIA GPU was found");
        }

        // AMD and Intel GPUs add their builds after CUDA's.
        if (probe_.has(GpuVendor::amd)) {
            std::vector<std::string> gfx;
            for (const auto& g : probe_.gpus_of(GpuVendor::amd))
                gfx.push_back(g.gfx_target);
            std::vector<std::string> rocm =
                host_.os == OsKind::linux_os ? rocm_order() : std::vector<std::string>{};
            if (rocm.empty()) {
                if (!c.backend) {
                    // An AMD GPU rules out a silent CPU build as an NVIDIA one does.
                    parts.push_back("AMD GPU " + list_text(gfx) + " found, but " +
                                    (host_.os == OsKind::linux_os
                                         ? torch_text_ + " has no ROCm build"
                                         : std::string("torch's ROCm builds are Linux only")) +
                                    " → refused");
                    c.reason = util::join(parts, "; ");
                    c.fix = host_.os == OsKind::linux_os
                                ? amd_fix() + " (or use --backend cpu to run without the GPU)"
                                : "use --backend cpu to run without the GPU, or Linux for ROCm";
                    return c;
                }
            } else {
                for (const auto& b : rocm)
                    c.candidates.push_back(b);
                if (!c.backend) {
                    parts.push_back("AMD GPU " + list_text(gfx) + " found; " + torch_text_ +
                                    " offers " + list_text(rocm) +
                                    " (gfx support not verified by aitk-env) → " + rocm.front());
                    c.backend = rocm.front();
                }
            }
        }
        if (probe_.has(GpuVendor::intel)) {
            if (release_->xpu && host_.os != OsKind::macos) {
                c.candidates.push_back("xpu");
                if (!c.backend) {
                    parts.push_back("discrete Intel GPU found; " + torch_text_ +
                                    " offers xpu → xpu");
                    c.backend = "xpu";
                }
            } else if (!c.backend) {
                parts.push_back("discrete Intel GPU found, but " + torch_text_ +
                                " has no xpu build");
            }
        }
        // CPU torch is a candidate only where no GPU would be left idle (no silent CPU).
        if (fb != "cpu" || !usable_gpu_) c.candidates.push_back(fb);
        if (!c.backend) {
            if (fb == "mps") {
                parts.push_back("Apple Silicon (arm64 macOS): " + torch_text_ +
                                " from PyPI runs on MPS → mps");
            } else if (parts.empty()) {
                parts.push_back("no GPU found; " + torch_text_ + " → cpu");
            } else {
                parts.push_back(torch_text_ + " → cpu");
            }
            c.backend = fb;
        }
        c.reason = util::join(parts, "; ");
        return c;
    }

    // Why `chosen` is taken over builds the preference puts first, or that it leans on
    // minor-version compatibility; nullopt when the driver runs it natively and nothing was
    // passed over.
    std::optional<std::string> driver_fit_note(const std::vector<std::string>& runnable,
                                               const std::string& chosen) const {
        if (!cuda_family_of(chosen)) return std::nullopt;
        if (!runs_natively(host_, probe_, chosen, tables_)) {
            std::string note = chosen + ": runs on " + driver_name() +
                               " through CUDA minor-version compatibility (" +
                               shipped_words(chosen) + ")";
            if (runnable.size() > 1) {
                note += "; no build here runs natively, so the one nearest the driver comes first";
            }
            return note;
        }
        std::vector<std::string> passed;
        for (const auto& b : runnable) {
            if (b == chosen) break;
            passed.push_back(b + " (" + shipped_words(b) + ")");
        }
        if (passed.empty()) return std::nullopt;
        return util::join(passed, ", ") + (passed.size() == 1 ? " runs" : " run") + " on " +
               driver_name() + " only through CUDA minor-version compatibility, so " + chosen +
               ", which it runs natively, comes first";
    }

    std::string coverage_words(const std::string& backend) const {
        if (nvidia_gpus_.empty()) {
            return "no GPU is listed, so compute capability is not checked (set "
                   "AITK_ENV_GPU_COMPUTE_CAPABILITY)";
        }
        const ArchRow* row = tables_.archs.find(backend, key_, host_.arch);
        std::vector<std::string> covered, unknown;
        bool by_ptx = false;
        for (std::size_t i = 0; i < nvidia_gpus_.size(); ++i) {
            const auto& g = nvidia_gpus_[i];
            if (!g.compute_capability || !row) {
                unknown.push_back(gpu_label(i, g));
                continue;
            }
            if (coverage(*row, *g.compute_capability) == Coverage::ptx) by_ptx = true;
            covered.push_back(gpu_label(i, g));
        }
        std::string out;
        if (!covered.empty()) {
            out = util::join(covered, ", ") + (covered.size() == 1 ? " is" : " are") +
                  " covered by " + backend;
            if (by_ptx) out += " (through PTX JIT compilation: slow first start)";
        }
        if (!unknown.empty()) {
            if (!out.empty()) out += "; ";
            out += util::join(unknown, ", ") + " not checked" +
                   (row ? std::string() : " (no architecture data for " + backend + ")");
        }
        return out;
    }

    // What to do when no CUDA build runs: a driver update if one would help, else a torch
    // release that has kernels for these GPUs.
    std::string nvidia_fix(const std::vector<std::string>& order) const {
        std::string cpu = " (or use --backend cpu to run without the GPU)";
        if (jetson_board()) return jetson_fix();
        if (!probe_.nvidia) {
            return "install the NVIDIA driver (" + min_driver_hint(order) + ")" + cpu;
        }
        // Builds that have kernels for every GPU but need a newer driver: for their CUDA family,
        // or because the driver does not know a GPU (a Blackwell card needs R570).
        std::vector<std::string> unknown_gpus;
        const ArchDriverFloor* floor = driver_floor_missed(&unknown_gpus);
        std::optional<DriverVersion> needed;
        std::vector<std::string> covering;
        std::string needed_words;
        for (const auto& b : order) {
            CoverageReport cov = covers(b, key_);
            if (!cov.all_covered) continue;
            covering.push_back(b);
            auto fam = cuda_family_of(b);
            const CudaFamily* family = fam ? tables_.drivers.family(*fam) : nullptr;
            if (!family) continue;
            DriverVersion build_needs = family->min_driver(host_.os);
            std::string words = "≥ " + build_needs.text() + " (CUDA " + family_text(*fam) + ")";
            if (floor && build_needs < floor->min_driver(host_.os)) {
                build_needs = floor->min_driver(host_.os);
                words = floor_words(*floor, unknown_gpus);
            }
            if (!needed || build_needs < *needed) {
                needed = build_needs;
                needed_words = words;
            }
        }
        if (needed) {
            std::string gpus;
            for (std::size_t i = 0; i < nvidia_gpus_.size(); ++i) {
                if (nvidia_gpus_[i].compute_capability)
                    gpus += (gpus.empty() ? "" : ", ") + gpu_label(i, nvidia_gpus_[i]);
            }
            std::string why = covering.size() == 1
                                  ? covering.front() + " is the only build of " + torch_text_
                                  : list_text(covering) + " are the builds of " + torch_text_;
            return "update the driver to " + needed_words + ": " + why + " with kernels for " +
                   (gpus.empty() ? std::string("these GPUs") : gpus) + cpu;
        }
        // No build of this release covers the GPUs: find the newest release with one that does
        // (a planned release, whose builds are unverified, is advice only for another planned
        // one).
        auto planned = [](const TorchRelease& r) {
            return std::find(r.unverified.begin(), r.unverified.end(), "cuda") !=
                   r.unverified.end();
        };
        for (auto it = tables_.releases.rbegin(); it != tables_.releases.rend(); ++it) {
            if (planned(*it) && !planned(*release_)) continue;
            std::vector<std::string> builds = it->cuda;
            builds.insert(builds.end(), it->cuda_experimental.begin(), it->cuda_experimental.end());
            for (const auto& b : builds) {
                CoverageReport cov = covers(b, it->torch);
                if (cov.all_covered && !cov.unknown) {
                    bool several = nvidia_gpus_.size() > 1;
                    std::string pin;
                    if (it->torch < key_) {
                        ReleaseKey next{it->torch.major, it->torch.minor + 1};
                        pin = ": pin torch<" + next.to_string();
                    }
                    return torch_text_ + " has no build with kernels for " +
                           (several ? "every GPU" : "this GPU") +
                           "; the newest torch with one is " + it->torch.to_string() + " (" + b +
                           ")" + pin +
                           (several ? ", or select GPUs with CUDA_VISIBLE_DEVICES" : "") + cpu;
                }
            }
        }
        if (nvidia_gpus_.size() > 1) {
            return "no torch release aitk-env knows has one build with kernels for every GPU; "
                   "select GPUs with "
                   "CUDA_VISIBLE_DEVICES (and set AITK_ENV_GPU_COMPUTE_CAPABILITY to match)" +
                   cpu;
        }
        return "no torch release aitk-env knows has kernels for this GPU" + cpu;
    }

    // The newest torch release with a ROCm build, for an AMD machine this release cannot serve.
    std::string amd_fix() const {
        for (auto it = tables_.releases.rbegin(); it != tables_.releases.rend(); ++it) {
            if (!it->rocm.empty()) {
                return "the newest torch with a ROCm build is " + it->torch.to_string() + " (rocm" +
                       it->rocm.back() + ")";
            }
        }
        return "no torch release aitk-env knows has a ROCm build";
    }

    std::string min_driver_hint(const std::vector<std::string>& order) const {
        std::vector<std::string> hints;
        for (const auto& b : order) {
            auto fam = cuda_family_of(b);
            const CudaFamily* family = fam ? tables_.drivers.family(*fam) : nullptr;
            if (family) hints.push_back(b + " needs ≥ " + family->min_driver(host_.os).text());
        }
        return list_text(hints);
    }

    const HostInfo& host_;
    const HardwareProbe& probe_;
    const BackendRequest& request_;
    const Tables& tables_;
    ReleaseKey key_;
    const TorchRelease* release_;
    std::vector<GpuDevice> nvidia_gpus_;
    std::string torch_text_;
    bool usable_gpu_;
};

}  // namespace

std::vector<ReleaseKey> BackendChoice::releases_of(std::string_view name) const {
    std::vector<ReleaseKey> out;
    for (const auto& p : pairs) {
        if (p.backend == name) out.push_back(p.release);
    }
    return out;
}

bool has_usable_gpu(const HostInfo& host, const HardwareProbe& probe) {
    if (probe.gpus_ignored) return false;
    // A Jetson's integrated GPU: NVML and often libcuda find nothing there, yet CPU torch on it
    // is never what its owner wants.
    if (host.jetson) return true;
    if (probe.has(GpuVendor::nvidia) || probe.has(GpuVendor::amd)) return true;
    return probe.nvidia && probe.nvidia->source == NvidiaSource::override_env;
}

BackendVerdict judge_build(const HostInfo& host, const HardwareProbe& probe,
                           const ReleaseKey& release, std::string_view backend,
                           const Tables& tables, bool cpu_forced) {
    BackendRequest request;
    request.torch = *pep::Version::parse(release.to_string());
    return Chooser(host, probe, request, tables, release, "torch " + release.to_string())
        .judge(backend, cpu_forced);
}

std::vector<ReleaseKey> releases_allowing(const pep::SpecifierSet& specifier,
                                          const Tables& tables) {
    // The local labels the specifier names: "==2.7.0+cu128" holds only 2.7.0+cu128.
    std::vector<std::string> labels{""};
    for (const auto& clause : specifier.specifiers()) {
        if (clause.version() && clause.version()->has_local())
            labels.push_back("+" + clause.version()->local());
    }
    std::vector<ReleaseKey> out;
    for (auto it = tables.releases.rbegin(); it != tables.releases.rend(); ++it) {
        const std::string base = it->torch.to_string() + ".";
        bool allowed = false;
        for (unsigned patch = 0; patch < 100 && !allowed; ++patch) {
            for (const auto& label : labels) {
                if (specifier.contains(base + std::to_string(patch) + label)) {
                    allowed = true;
                    break;
                }
            }
        }
        if (allowed) out.push_back(it->torch);
    }
    return out;
}

BackendChoice choose_backend(const HostInfo& host, const HardwareProbe& probe,
                             const BackendRequest& request, const Tables& tables) {
    if (request.releases.size() <= 1) {
        ReleaseKey key{static_cast<unsigned>(request.torch.major()),
                       static_cast<unsigned>(request.torch.minor())};
        std::string text = "torch " + request.torch.public_string();
        if (!request.releases.empty()) {
            key = request.releases.front();
            if (!request.torch_text.empty()) text = request.torch_text;
        }
        return Chooser(host, probe, request, tables, key, std::move(text)).choose();
    }
    // Several releases: the newest with a build that runs here wins; the builds of the others
    // stay candidates (a backend index may lack the newest).
    std::vector<std::string> names;
    for (const auto& r : request.releases)
        names.push_back(r.to_string());
    const std::string allows =
        (request.torch_text.empty() ? std::string("the inputs") : request.torch_text) +
        " allows torch " + util::join(names, ", ") + " (newest first)";
    BackendChoice out;
    std::vector<std::string> passed;
    std::optional<BackendChoice> first_refusal;
    for (const auto& key : request.releases) {
        BackendChoice c =
            Chooser(host, probe, request, tables, key, "torch " + key.to_string()).choose();
        out.verdicts.insert(out.verdicts.end(), c.verdicts.begin(), c.verdicts.end());
        out.forced = out.forced || c.forced;
        if (c.refused()) {
            if (out.backend) continue;
            if (!first_refusal) first_refusal = c;
            passed.push_back("torch " + key.to_string() + ": " + c.reason);
            continue;
        }
        if (!out.backend) {
            out.backend = c.backend;
            out.release = key;
            out.fix = c.fix;
            passed.push_back("torch " + key.to_string() + ": " + c.reason);
        }
        out.pairs.insert(out.pairs.end(), c.pairs.begin(), c.pairs.end());
    }
    for (const auto& p : out.pairs) {
        if (std::find(out.candidates.begin(), out.candidates.end(), p.backend) ==
            out.candidates.end()) {
            out.candidates.push_back(p.backend);
        }
    }
    if (!out.backend) {
        // Every release is refused: the newest one's reason and fix, and that the rest fared no
        // better.
        out.reason = allows + "; " + passed.front() +
                     (passed.size() > 1 ? "; every older release it allows is refused too" : "");
        out.fix = first_refusal->fix;
        return out;
    }
    out.reason = allows + "; " + util::join(passed, "; ");
    return out;
}

}  // namespace aitk::platform
