// pip's hash-checking mode (pip/_internal/cli/req_command.py turns it on, operations/prepare.py
// refuses what it cannot check, req_install.py's hashes() says which digests are good) over
// the lines of a ProjectInput.
#include "aitk/project/hash_pins.hpp"

#include <algorithm>
#include <system_error>

#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "requirements_entry.hpp"

namespace aitk::project {

namespace {

void add_unique(std::vector<std::string>& into, const std::vector<std::string>& from) {
    for (const auto& h : from) {
        if (std::find(into.begin(), into.end(), h) == into.end()) into.push_back(h);
    }
}

std::string_view algorithm_of(std::string_view pin) {
    return pin.substr(0, pin.find(':'));
}
std::string_view digest_of(std::string_view pin) {
    auto colon = pin.find(':');
    return colon == std::string_view::npos ? std::string_view() : pin.substr(colon + 1);
}

// pip's InstallRequirement.is_pinned: exactly one clause, `==` or `===`.
bool is_pinned(const RequirementLine& line) {
    if (!line.requirement) return false;
    const auto& clauses = line.requirement->specifier().specifiers();
    return clauses.size() == 1 && (clauses.front().op() == pep::Operator::equal ||
                                   clauses.front().op() == pep::Operator::arbitrary);
}

// The line as shown in a message: its requirement with any URL's credentials hidden.
std::string shown(const RequirementLine& line) {
    if (!line.url.empty()) {
        std::string text = line.text;
        auto at = text.find(line.url);
        if (at != std::string::npos) text.replace(at, line.url.size(), util::redact_url(line.url));
        return text;
    }
    return line.text;
}

// Whether the line has a --hash option: pip's has_hash_options. A URL's "#sha256=" fragment
// (which RequirementLine::hashes also holds) satisfies hash-checking but does not turn it on.
bool has_hash_options(const RequirementLine& line) {
    if (line.url.empty()) return !line.hashes.empty();
    const auto fragment = pep::split_fragment(line.url);
    for (const auto& hash : line.hashes) {
        const std::string as_fragment =
            std::string(algorithm_of(hash)) + "=" + std::string(digest_of(hash));
        bool from_url = false;
        for (std::string_view item : fragment.items())
            from_url |= util::iequals(item, as_fragment);
        if (!from_url) return true;
    }
    return false;
}

bool names_local_folder(const RequirementLine& line) {
    if (line.url.empty() || line.vcs) return false;
    auto path = detail::file_url_to_path(pep::split_fragment(line.url).url);
    std::error_code ec;
    return path && std::filesystem::is_directory(*path, ec);
}

// Why pip refuses `line` in hash-checking mode, or "".
util::InputProblem refusal(const RequirementLine& line, std::string message, std::string hint) {
    return util::InputProblem{line.where, std::move(message), std::move(hint)};
}

}  // namespace

HashPin::Verdict HashPin::judge(const std::map<std::string, std::string>& digests) const {
    // pip's Hashes.check_against_chunks: any digest among the pins of its algorithm passes.
    auto judge_list = [&](const std::vector<std::string>& pins) {
        bool uses = false;
        for (const auto& pin : pins) {
            auto digest = digests.find(std::string(algorithm_of(pin)));
            if (digest == digests.end()) continue;
            uses = true;
            if (util::iequals(digest_of(pin), digest->second)) return Verdict::allowed;
        }
        return uses ? Verdict::refused : Verdict::unknown;
    };
    const Verdict by_lines = judge_list(allowed);
    if (by_lines == Verdict::refused) return by_lines;
    if (constrained.empty()) return by_lines;
    const Verdict by_constraints = judge_list(constrained);
    if (by_constraints == Verdict::refused) return by_constraints;
    if (by_lines == Verdict::allowed && by_constraints == Verdict::allowed) return Verdict::allowed;
    return Verdict::unknown;
}

std::vector<std::string> HashPin::algorithms() const {
    std::vector<std::string> out;
    for (const auto* list : {&allowed, &constrained}) {
        for (const auto& pin : *list) {
            std::string algorithm(algorithm_of(pin));
            if (std::find(out.begin(), out.end(), algorithm) == out.end()) out.push_back(algorithm);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string HashPin::options_text() const {
    std::string out;
    for (const auto& pin : allowed) {
        if (!out.empty()) out += ' ';
        out += "--hash=" + pin;
    }
    return out;
}

const HashPin* HashChecking::find(std::string_view name) const {
    auto it = pins.find(name);
    return it == pins.end() ? nullptr : &it->second;
}

HashChecking hash_checking_for(const ProjectInput& input, const Target& target,
                               bool required_by_command_line) {
    HashChecking out;
    const auto requirements = input.requirements_for(target);
    const auto constraints = input.constraints_for(target);
    if (required_by_command_line) {
        out.on = true;
        out.reason = "--require-hashes on the command line";
    } else if (input.options.require_hashes) {
        out.on = true;
        out.reason = "--require-hashes in the requirements";
    } else {
        for (const auto* list : {&requirements, &constraints}) {
            for (const auto* entry : *list) {
                if (!out.on && has_hash_options(entry->line)) {
                    out.on = true;
                    out.reason = "the --hash at " + entry->line.where.to_string() +
                                 " turns it on, as in pip";
                }
            }
        }
    }

    // The pin of a hashed line's package, made at the first line that names it.
    auto pin_of = [&](const auto& line) -> HashPin* {
        if (!line.requirement || line.hashes.empty()) return nullptr;
        auto& pin = out.pins[line.requirement->canonical_name()];
        if (pin.name.empty()) {
            pin.name = line.requirement->canonical_name();
            pin.where = line.where;
            pin.line = shown(line);
        }
        return &pin;
    };
    for (const auto* entry : requirements) {
        if (auto* pin = pin_of(entry->line)) {
            add_unique(pin->allowed, entry->line.hashes);
            pin->specifier &= entry->line.requirement->specifier();
        }
    }
    for (const auto* entry : constraints) {
        if (auto* pin = pin_of(entry->line)) add_unique(pin->constrained, entry->line.hashes);
    }
    if (!out.on) return out;

    for (const auto* entry : requirements) {
        const auto& line = entry->line;
        if (line.editable) {
            out.problems.push_back(refusal(
                line,
                "the editable requirement " + shown(line) +
                    " cannot be installed in hash-checking mode: there is no single file to hash",
                "install it without -e from a pinned, hashed archive, or leave hash-checking off"));
        } else if (line.vcs) {
            out.problems.push_back(refusal(
                line,
                shown(line) + ": a version-control URL cannot be hash-checked (there is no file "
                              "to hash)",
                "point it at an archive of the commit with --hash, e.g. name @ "
                "https://…/archive/<commit>.tar.gz --hash=sha256:…"));
        } else if (names_local_folder(line)) {
            out.problems.push_back(refusal(
                line, shown(line) + ": a local folder cannot be hash-checked (it is not one file)",
                "build a wheel or sdist of it and require that file with --hash"));
        } else if (line.url.empty() && !is_pinned(line)) {
            const std::string name =
                line.requirement ? line.requirement->name() : std::string("the project");
            out.problems.push_back(
                refusal(line,
                        "in hash-checking mode every requirement must be pinned with == or ===; " +
                            shown(line) + " is not",
                        "pin it: " + name + "==<version> --hash=sha256:<digest>"));
        }
    }
    return out;
}

}  // namespace aitk::project
