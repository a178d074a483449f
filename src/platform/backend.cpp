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

std::optional<unsigned> cuda_family_of(std::string_view backend) {
    if (backend.size() < 4 || backend.size() > 5 || backend.substr(0, 2) != "cu")
        return std::nullopt;
    unsigned n = 0;
    for (char c : backend.substr(2)) {
        if (!util::is_ascii_digit(c)) return std::nullopt;
        n = n * 10 + static_cast<unsigned>(c - '0');
    }
    return n / 10;  // cu126 → 12, cu118 → 11, cu92 → 9
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
                              const ReleaseKey& torch, const ArchTable& archs) {
    CoverageReport report;
    const ArchRow* row = archs.find(variant, torch);
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
    Chooser(const HostInfo& host, const HardwareProbe& probe, const BackendRequest& request,
            const Tables& tables)
        : host_(host),
          probe_(probe),
          request_(request),
          tables_(tables),
          key_{static_cast<unsigned>(request.torch.major()),
               static_cast<unsigned>(request.torch.minor())},
          release_(tables.release(key_)),
          nvidia_gpus_(probe.gpus_of(GpuVendor::nvidia)),
          torch_text_("torch " + request.torch.public_string()) {}

    BackendChoice choose() {
        if (!release_) return unknown_release();
        if (request_.forced) return forced();
        return automatic();
    }

  private:
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
        return true;
    }

    BackendVerdict evaluate(const std::string& backend) const {
        BackendVerdict v{backend, false, {}};
        if (backend == "cpu") {
            v.runs = true;
            v.why = "runs anywhere";
        } else if (backend == "mps") {
            v.runs = host_.os == OsKind::macos && host_.arch == "arm64" && !probe_.gpus_ignored;
            v.why = v.runs ? "Apple Silicon" : "MPS needs an Apple Silicon Mac (arm64 macOS)";
        } else if (auto fam = cuda_family_of(backend)) {
            if (host_.os == OsKind::macos) {
                v.why = "there are no CUDA builds for macOS";
            } else {
                // Both conditions are reported, so a refusal names everything that is missing.
                std::string driver_why;
                bool driver_ok = driver_runs(*fam, driver_why);
                CoverageReport cov = check_coverage(nvidia_gpus_, backend, key_, tables_.archs);
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
        BackendVerdict v = evaluate(f);
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
        BackendChoice auto_choice = Chooser(host_, probe_, automatic_request, tables_).choose();
        c.candidates.clear();
        c.reason = by + ", but " + f + " " + verb(v.why) + " on this machine → refused";
        c.fix = "drop " + request_.forced_by + " (detection picks " +
                (auto_choice.backend ? *auto_choice.backend : std::string("nothing")) +
                "), or add --force to use " + f + " anyway (e.g. for another machine)";
        return c;
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

        bool nvidia_machine =
            !nvidia_gpus_.empty() ||
            (probe_.nvidia && probe_.nvidia->source == NvidiaSource::override_env);
        std::vector<std::string> notes;
        if (nvidia_machine) {
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
            std::string chosen_cuda;
            for (const auto& b : order) {
                BackendVerdict v = evaluate(b);
                c.verdicts.push_back(v);
                if (v.runs) {
                    c.candidates.push_back(b);
                    if (chosen_cuda.empty()) chosen_cuda = b;
                } else if (chosen_cuda.empty()) {
                    parts.push_back(b + " " + v.why);
                }
            }
            if (chosen_cuda.empty()) {
                c.candidates.push_back(fb);
                parts.back() += " → refused";
                c.reason = util::join(parts, "; ");
                c.fix = nvidia_fix(order);
                return c;
            }
            parts.push_back(coverage_words(chosen_cuda) + " → " + chosen_cuda);
            c.backend = chosen_cuda;
        } else if (probe_.nvidia) {
            parts.push_back(driver_words() + ", but no NVIDIA GPU was found");
        }

        // AMD and Intel GPUs add their builds after CUDA's.
        if (probe_.has(GpuVendor::amd) && host_.os == OsKind::linux_os) {
            std::vector<std::string> gfx;
            for (const auto& g : probe_.gpus_of(GpuVendor::amd))
                gfx.push_back(g.gfx_target);
            std::vector<std::string> rocm = rocm_order();
            if (rocm.empty()) {
                if (!c.backend)
                    parts.push_back("AMD GPU " + list_text(gfx) + " found, but " + torch_text_ +
                                    " has no ROCm build");
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
        c.candidates.push_back(fb);
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

    std::string coverage_words(const std::string& backend) const {
        if (nvidia_gpus_.empty()) {
            return "no GPU is listed, so compute capability is not checked (set "
                   "AITK_ENV_GPU_COMPUTE_CAPABILITY)";
        }
        const ArchRow* row = tables_.archs.find(backend, key_);
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
        if (!probe_.nvidia) {
            return "install the NVIDIA driver (" + min_driver_hint(order) + ")" + cpu;
        }
        // Builds that have kernels for every GPU but need a newer driver.
        std::optional<DriverVersion> needed;
        std::vector<std::string> covering;
        std::optional<unsigned> needed_family;
        for (const auto& b : order) {
            CoverageReport cov = check_coverage(nvidia_gpus_, b, key_, tables_.archs);
            if (!cov.all_covered) continue;
            covering.push_back(b);
            auto fam = cuda_family_of(b);
            const CudaFamily* family = fam ? tables_.drivers.family(*fam) : nullptr;
            if (family && (!needed || family->min_driver(host_.os) < *needed)) {
                needed = family->min_driver(host_.os);
                needed_family = *fam;
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
            return "update the driver to ≥ " + needed->text() + " (CUDA " +
                   family_text(*needed_family) + "): " + why + " with kernels for " +
                   (gpus.empty() ? std::string("these GPUs") : gpus) + cpu;
        }
        // No build of this release covers the GPUs: find the newest release with one that does.
        for (auto it = tables_.releases.rbegin(); it != tables_.releases.rend(); ++it) {
            std::vector<std::string> builds = it->cuda;
            builds.insert(builds.end(), it->cuda_experimental.begin(), it->cuda_experimental.end());
            for (const auto& b : builds) {
                CoverageReport cov = check_coverage(nvidia_gpus_, b, it->torch, tables_.archs);
                if (cov.all_covered && !cov.unknown) {
                    bool several = nvidia_gpus_.size() > 1;
                    return torch_text_ + " has no build with kernels for " +
                           (several ? "every GPU" : "this GPU") +
                           "; the newest torch with one is " + it->torch.to_string() + " (" + b +
                           ")" + (several ? ", or select GPUs with CUDA_VISIBLE_DEVICES" : "") +
                           cpu;
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
};

}  // namespace

BackendChoice choose_backend(const HostInfo& host, const HardwareProbe& probe,
                             const BackendRequest& request, const Tables& tables) {
    return Chooser(host, probe, request, tables).choose();
}

}  // namespace aitk::platform
