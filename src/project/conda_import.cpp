// From a conda environment to aitk-env's inputs: conda packages become PyPI requirements (named
// by manifests/conda-pypi.yaml), python gives the interpreter version, CUDA packages give the
// backend, packages that the interpreter, the system or the wheels supply are skipped with a
// note, and the `pip:` items follow. pip runs after conda, so a pip item replaces a conda
// package of the same PyPI name.
#include <algorithm>
#include <set>

#include "aitk/pep/name.hpp"
#include "aitk/project/conda_environment.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::project {
namespace {

// A build string of a Python package: none, PyPI ("pypi_0"), noarch python ("pyhd3eb1b0_0",
// "py_0") or one per Python version ("py36h06a4308_0", conda-forge's "cuda112py39h…").
bool is_python_build(std::string_view build) {
    if (build.empty() || build.rfind("pypi", 0) == 0) return true;
    for (std::size_t i = build.find("py"); i != std::string_view::npos;
         i = build.find("py", i + 1)) {
        if (i + 2 == build.size()) return true;
        char next = build[i + 2];
        if (util::is_ascii_digit(next) || next == 'h' || next == '_') return true;
    }
    return false;
}

std::string spec_label(const CondaSpec& spec) {
    return spec.version.empty() ? spec.name : spec.name + "=" + spec.version;
}

// "cu102" from "10.2.89", "11.8", "12.1.*", ">=11.8"; nothing without MAJOR.MINOR.
std::optional<std::string> cuda_backend(std::string_view version) {
    std::size_t i = version.find_first_of("0123456789");
    if (i == std::string_view::npos) return std::nullopt;
    std::size_t j = i;
    while (j < version.size() && util::is_ascii_digit(version[j]))
        ++j;
    if (j >= version.size() || version[j] != '.' || j - i > 2) return std::nullopt;
    std::size_t k = j + 1;
    while (k < version.size() && util::is_ascii_digit(version[k]))
        ++k;
    if (k == j + 1 || k - j - 1 > 2) return std::nullopt;
    std::string major(version.substr(i, j - i));
    std::string minor(version.substr(j + 1, k - j - 1));
    if (major.size() > 1 && major[0] == '0') return std::nullopt;
    return "cu" + major + std::to_string(std::stoul(minor));
}

// The backend a pytorch-channel build string names: "py3.8_cuda10.2_cudnn7.6.5_0" → cu102,
// "py38_cu113" → cu113, conda-forge's "cuda112py39h…" → cu112, "py3.9_cpu_0" → cpu.
std::optional<std::string> backend_from_build(std::string_view build) {
    if (std::size_t at = build.find("cuda"); at != std::string_view::npos) {
        std::string_view rest = build.substr(at + 4);
        if (auto dotted = cuda_backend(rest.substr(0, rest.find('_')));
            dotted && !rest.empty() && util::is_ascii_digit(rest[0])) {
            return dotted;
        }
        std::size_t digits = 0;
        while (digits < rest.size() && util::is_ascii_digit(rest[digits]))
            ++digits;
        if (digits == 3) return "cu" + std::string(rest.substr(0, digits));
    }
    for (std::size_t at = build.find("cu"); at != std::string_view::npos;
         at = build.find("cu", at + 1)) {
        std::string_view rest = build.substr(at + 2);
        std::size_t digits = 0;
        while (digits < rest.size() && util::is_ascii_digit(rest[digits]))
            ++digits;
        if (digits == 3 && (at == 0 || build[at - 1] == '_')) {
            return "cu" + std::string(rest.substr(0, 3));
        }
    }
    if (build.find("cpu") != std::string_view::npos) return std::string("cpu");
    return std::nullopt;
}

struct BackendChoice {
    std::string backend;
    int priority = 0;  // pytorch-cuda / cpuonly 3, other CUDA packages 2, a torch build string 1
    std::string from;  // "cudatoolkit=10.2.89"
};

int backend_priority(std::string_view conda_name) {
    return (conda_name == "pytorch-cuda" || conda_name == "cpuonly") ? 3 : 2;
}

class Importer {
  public:
    Importer(const CondaEnvironment& env, bool skip_unmapped)
        : env_(env), skip_unmapped_(skip_unmapped) {}

    Loaded<CondaImport> run() {
        out_.variables = env_.variables;
        out_.pip_options = env_.pip.options;
        std::vector<RequirementLine> from_conda;
        for (const auto& spec : env_.conda) {
            if (auto problem = convert(spec, from_conda))
                return util::Unexpected(std::move(*problem));
        }
        // The backend first: it decides the most about the environment.
        std::vector<std::string> notes;
        if (backend_) {
            out_.backend = backend_->backend;
            notes.push_back(backend_->from + " selects the " + backend_->backend + " backend");
        }
        notes.insert(notes.end(), backend_notes_.begin(), backend_notes_.end());
        out_.notes.insert(out_.notes.begin(), notes.begin(), notes.end());

        std::set<std::string> from_pip;
        for (const auto& line : env_.pip.requirements) {
            if (!line.name().empty()) from_pip.insert(line.name());
        }
        std::set<std::string> seen;
        for (auto& line : from_conda) {
            if (from_pip.count(line.name())) {
                out_.notes.push_back(line.text + " from conda (line " +
                                     std::to_string(line.where.line) +
                                     ") gives way to the pip item for " + line.name() +
                                     " (pip installs after conda)");
                continue;
            }
            if (!seen.insert(line.text).second) continue;  // two conda names, one PyPI project
            out_.requirements.push_back(std::move(line));
        }
        out_.requirements.insert(out_.requirements.end(), env_.pip.requirements.begin(),
                                 env_.pip.requirements.end());
        out_.constraints = env_.pip.constraints;

        if (!unmapped_.empty()) {
            if (!skip_unmapped_) return unmapped_problem();
            for (const auto& [spec, note] : unmapped_) {
                out_.notes.push_back("skipped " + spec_label(*spec) + " (line " +
                                     std::to_string(spec->where.line) + "): no PyPI equivalent" +
                                     (note.empty() ? "" : ": " + note));
                out_.unmapped.push_back(*spec);
            }
        }
        return std::move(out_);
    }

  private:
    std::optional<InputProblem> convert(const CondaSpec& spec,
                                        std::vector<RequirementLine>& from_conda) {
        const CondaMapping* mapping = find_conda_mapping(spec.name);
        CondaRole role = mapping ? mapping->role : CondaRole::pypi;
        if (!mapping && !is_python_build(spec.build)) role = CondaRole::unmappable;
        switch (role) {
            case CondaRole::interpreter:
                return interpreter(spec);
            case CondaRole::backend:
                backend(spec, *mapping);
                return std::nullopt;
            case CondaRole::provided:
                out_.notes.push_back("skipped " + spec_label(spec) + ": " + mapping->note);
                return std::nullopt;
            case CondaRole::unmappable:
                unmapped_.emplace_back(&spec, mapping ? mapping->note : std::string{});
                return std::nullopt;
            case CondaRole::pypi:
                break;
        }
        std::string name = mapping ? mapping->pypi_name : pep::canonicalize_name(spec.name);
        auto specifier = conda_version_to_specifier(spec.version);
        if (!specifier) {
            return InputProblem{
                spec.where, "the version of " + spec.name + " cannot be used: " + specifier.error(),
                "pin " + name +
                    " with a PEP 440 version in the `pip:` list instead, or "
                    "drop the version"};
        }
        std::string text = name + *specifier;
        auto requirement = pep::Requirement::parse(text);
        if (!requirement) {
            return InputProblem{
                spec.where,
                "'" + spec.text + "' gives '" + text +
                    "', which is not a PEP 508 requirement: " + requirement.error().message,
                "move it to the `pip:` list as a PEP 508 requirement"};
        }
        RequirementLine line;
        line.where = spec.where;
        line.text = text;
        line.requirement = std::move(*requirement);
        from_conda.push_back(std::move(line));
        if (name == "torch" || name == "torchvision" || name == "torchaudio") {
            if (auto b = backend_from_build(spec.build)) {
                choose(BackendChoice{*b, 1, spec.name + "=" + spec.version + "=" + spec.build});
            }
        }
        return std::nullopt;
    }

    std::optional<InputProblem> interpreter(const CondaSpec& spec) {
        if (spec.version.empty()) return std::nullopt;
        const std::string& v = spec.version;
        bool plain = v.find_first_of("<>=!~,|") == std::string::npos;
        if (plain) {
            std::string version = v.size() > 2 && v.ends_with(".*") ? v.substr(0, v.size() - 2) : v;
            if (pep::Version::parse(version)) {
                out_.python = version;
                return std::nullopt;
            }
        }
        auto specifier = conda_version_to_specifier(v);
        if (!specifier) {
            return InputProblem{spec.where,
                                "the Python version cannot be used: " + specifier.error(),
                                "write python=3.X.Y"};
        }
        out_.python = *specifier;
        return std::nullopt;
    }

    void backend(const CondaSpec& spec, const CondaMapping& mapping) {
        std::optional<std::string> chosen =
            mapping.backend.empty() ? cuda_backend(spec.version) : mapping.backend;
        if (!chosen) {
            backend_notes_.push_back(spec_label(spec) +
                                     " names no CUDA MAJOR.MINOR version; the "
                                     "backend is left to detection");
            return;
        }
        choose(BackendChoice{*chosen, backend_priority(spec.name), spec_label(spec)});
    }

    void choose(BackendChoice candidate) {
        if (!backend_ || candidate.priority > backend_->priority) {
            if (backend_ && backend_->backend != candidate.backend) {
                backend_notes_.push_back(candidate.from + " overrides " + backend_->from);
            }
            backend_ = std::move(candidate);
        } else if (backend_->backend != candidate.backend) {
            backend_notes_.push_back(candidate.from + " disagrees with " + backend_->from +
                                     "; keeping " + backend_->backend);
        }
    }

    Loaded<CondaImport> unmapped_problem() const {
        std::string list;
        for (const auto& [spec, note] : unmapped_) {
            list += "\n  " + spec_label(*spec) + (spec->build.empty() ? "" : "=" + spec->build) +
                    " (line " + std::to_string(spec->where.line) + ")";
            if (!note.empty()) list += ": " + note;
        }
        std::size_t n = unmapped_.size();
        return util::input_problem(
            unmapped_.front().first->where,
            std::to_string(n) + (n == 1 ? " conda package has" : " conda packages have") +
                " no PyPI equivalent:" + list,
            "install " + std::string(n == 1 ? "it" : "them") +
                " another way (the system's package manager) and pass --skip-unmapped to "
                "import the rest");
    }

    const CondaEnvironment& env_;
    bool skip_unmapped_;
    CondaImport out_;
    std::optional<BackendChoice> backend_;
    std::vector<std::string> backend_notes_;
    std::vector<std::pair<const CondaSpec*, std::string>> unmapped_;
};

}  // namespace

Loaded<CondaImport> import_conda_environment(const CondaEnvironment& env, bool skip_unmapped) {
    return Importer(env, skip_unmapped).run();
}

}  // namespace aitk::project
