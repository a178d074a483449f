#include "aitk/app/pep.hpp"

#include <istream>
#include <ostream>
#include <string>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/pep/wheel_filename.hpp"

namespace aitk::app {
namespace {

using nlohmann::json;

// A request field that must be a string; throws a message the batch reports as an error.
struct RequestError {
    std::string message;
};

std::string string_field(const json& request, const char* key) {
    auto it = request.find(key);
    if (it == request.end()) throw RequestError{std::string("missing field \"") + key + "\""};
    if (!it->is_string()) throw RequestError{std::string("field \"") + key + "\" must be a string"};
    return it->get<std::string>();
}

template <class T>
const T& require(const pep::Parsed<T>& parsed) {
    if (!parsed) throw RequestError{parsed.error().describe()};
    return *parsed;
}

json ok(json result) {
    return json{{"ok", true}, {"result", std::move(result)}};
}

json op_normalize(const json& r) {
    return ok(require(pep::Version::parse(string_field(r, "version"))).to_string());
}

json op_compare(const json& r) {
    const pep::Version a = require(pep::Version::parse(string_field(r, "a")));
    const pep::Version b = require(pep::Version::parse(string_field(r, "b")));
    auto c = a <=> b;
    return ok(c < 0 ? -1 : (c > 0 ? 1 : 0));
}

json op_version(const json& r) {
    const pep::Version v = require(pep::Version::parse(string_field(r, "version")));
    json pre = nullptr;
    if (v.pre()) pre = json::array({pep::pre_kind_string(v.pre()->kind), v.pre()->number});
    return ok(json{{"normalized", v.to_string()},
                   {"public", v.public_string()},
                   {"base_version", v.base_version()},
                   {"epoch", v.epoch()},
                   {"release", std::vector<std::uint64_t>(v.release().begin(), v.release().end())},
                   {"pre", pre},
                   {"post", v.post() ? json(*v.post()) : json(nullptr)},
                   {"dev", v.dev() ? json(*v.dev()) : json(nullptr)},
                   {"local", v.has_local() ? json(v.local()) : json(nullptr)},
                   {"is_prerelease", v.is_prerelease()},
                   {"is_postrelease", v.is_postrelease()},
                   {"is_devrelease", v.is_devrelease()}});
}

// "prereleases": true/false/null (or absent) -> packaging's tri-state argument.
std::optional<bool> tri_state(const json& r, const char* key) {
    auto it = r.find(key);
    if (it == r.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean())
        throw RequestError{std::string("field \"") + key + "\" must be true, false or null"};
    return it->get<bool>();
}

json op_contains(const json& r) {
    const pep::SpecifierSet spec = require(pep::SpecifierSet::parse(string_field(r, "spec")));
    const pep::Version version = require(pep::Version::parse(string_field(r, "version")));
    bool installed =
        r.contains("installed") && r["installed"].is_boolean() && r["installed"].get<bool>();
    return ok(spec.contains(version, tri_state(r, "prereleases"), installed));
}

json op_filter(const json& r) {
    const pep::SpecifierSet spec = require(pep::SpecifierSet::parse(string_field(r, "spec")));
    auto it = r.find("versions");
    if (it == r.end() || !it->is_array())
        throw RequestError{"field \"versions\" must be an array of strings"};
    std::vector<std::string> versions;
    for (const auto& v : *it) {
        if (!v.is_string()) throw RequestError{"field \"versions\" must be an array of strings"};
        versions.push_back(v.get<std::string>());
    }
    return ok(spec.filter(versions, tri_state(r, "prereleases")));
}

json op_marker(const json& r) {
    const pep::Marker marker = require(pep::Marker::parse(string_field(r, "marker")));
    pep::MarkerEnvironment env;
    if (auto it = r.find("environment"); it != r.end()) {
        if (!it->is_object()) throw RequestError{"field \"environment\" must be an object"};
        for (const auto& [key, value] : it->items()) {
            // packaging looks up only the variables a marker names, so a key that is no marker
            // variable (its tests pass {"a": "a"}) is ignored, whatever its value.
            const auto variable = pep::marker_variable_from_name(key);
            if (!variable) continue;
            if (!value.is_string()) {
                throw RequestError{"environment value \"" + key + "\" must be a string"};
            }
            env.set(*variable, value.get<std::string>());
        }
    }
    return ok(require(marker.evaluate(env)));
}

json op_requirement(const json& r) {
    const pep::Requirement req = require(pep::Requirement::parse(string_field(r, "input")));
    return ok(json{{"name", req.name()},
                   {"canonical_name", req.canonical_name()},
                   {"extras", req.extras()},
                   {"specifier", req.specifier().to_string()},
                   {"url", req.url() ? json(*req.url()) : json(nullptr)},
                   {"marker", req.marker() ? json(req.marker()->to_string()) : json(nullptr)},
                   {"str", req.to_string()}});
}

json op_name(const json& r) {
    return ok(pep::canonicalize_name(string_field(r, "input")));
}

json tags_json(const std::vector<pep::Tag>& tags) {
    json out = json::array();
    for (const auto& t : tags)
        out.push_back(t.to_string());
    return out;
}

// {"python":"3.12","os":"linux","arch":"x86_64","libc":"glibc 2.36"} (or "musl 1.2",
// "os_version":"14.0" for macOS) -> the target the compatible tags are generated for.
pep::TargetPlatform target_from(const json& r) {
    pep::TargetPlatform t;
    auto version_pair = [](const std::string& text, const char* what) {
        auto dot = text.find('.');
        try {
            if (dot == std::string::npos) throw std::invalid_argument(text);
            std::size_t used = 0;
            unsigned long a = std::stoul(text.substr(0, dot));
            unsigned long b = std::stoul(text.substr(dot + 1), &used);
            if (used != text.size() - dot - 1) throw std::invalid_argument(text);
            if (a > pep::max_target_version_part || b > pep::max_target_version_part) {
                throw RequestError{std::string(what) + " \"" + text +
                                   "\" is out of range (each part at most " +
                                   std::to_string(pep::max_target_version_part) + ")"};
            }
            return pep::OsVersion{static_cast<unsigned>(a), static_cast<unsigned>(b)};
        } catch (const std::exception&) {
            throw RequestError{std::string(what) + " must look like X.Y, got \"" + text + "\""};
        }
    };
    auto python = version_pair(r.contains("python") ? string_field(r, "python") : "3.12", "python");
    t.python_major = python.major;
    t.python_minor = python.minor;
    if (r.contains("abi_flags")) t.abi_flags = string_field(r, "abi_flags");
    std::string os = r.contains("os") ? string_field(r, "os") : "linux";
    if (r.contains("arch")) t.arch = string_field(r, "arch");
    if (os == "linux") {
        std::string libc = r.contains("libc") ? string_field(r, "libc") : "glibc 2.17";
        auto space = libc.find(' ');
        std::string family = libc.substr(0, space);
        if (space == std::string::npos || (family != "glibc" && family != "musl")) {
            throw RequestError{"libc must be \"glibc X.Y\" or \"musl X.Y\", got \"" + libc + "\""};
        }
        t.os = family == "musl" ? pep::TargetOs::linux_musl : pep::TargetOs::linux_glibc;
        t.os_version = version_pair(libc.substr(space + 1), "libc version");
    } else if (os == "macos") {
        t.os = pep::TargetOs::macos;
        t.os_version = version_pair(
            r.contains("os_version") ? string_field(r, "os_version") : "11.0", "os_version");
    } else if (os == "windows") {
        t.os = pep::TargetOs::windows;
    } else {
        throw RequestError{"os must be linux, macos or windows, got \"" + os + "\""};
    }
    return t;
}

json op_tags(const json& r) {
    return ok(tags_json(pep::compatible_tags(target_from(r))));
}

json op_wheel(const json& r) {
    const pep::WheelFilename w = require(pep::WheelFilename::parse(string_field(r, "filename")));
    json build = nullptr;
    if (w.build) build = json::array({w.build->number, w.build->suffix});
    json result{{"name", w.name},
                {"version", w.version.to_string()},
                {"build", build},
                {"tags", tags_json(w.tags)}};
    // With a target, also say whether (and how well) the wheel fits it: rank 0 is the best tag.
    if (r.contains("target")) {
        auto priority = pep::TagPriority::for_target(target_from(r["target"]));
        auto rank = priority.best_rank(w.tags);
        result["compatible"] = rank.has_value();
        result["rank"] = rank ? json(*rank) : json(nullptr);
    }
    return ok(std::move(result));
}

using Handler = json (*)(const json&);
struct Op {
    const char* name;
    Handler handler;
};

constexpr Op kOps[] = {
    {"normalize", op_normalize}, {"compare", op_compare},         {"version", op_version},
    {"name", op_name},           {"contains", op_contains},       {"filter", op_filter},
    {"marker", op_marker},       {"requirement", op_requirement}, {"wheel", op_wheel},
    {"tags", op_tags},
};

}  // namespace

json pep_eval(const json& request) {
    try {
        if (!request.is_object())
            return json{{"ok", false}, {"error", "request must be an object"}};
        std::string op = string_field(request, "op");
        for (const Op& candidate : kOps) {
            if (op == candidate.name) return candidate.handler(request);
        }
        std::string known;
        for (const Op& candidate : kOps)
            known += std::string(known.empty() ? "" : ", ") + candidate.name;
        return json{{"ok", false}, {"error", "unknown op \"" + op + "\" (known: " + known + ")"}};
    } catch (const RequestError& e) {
        return json{{"ok", false}, {"error", e.message}};
    } catch (const json::exception& e) {
        return json{{"ok", false}, {"error", std::string("bad request: ") + e.what()}};
    }
}

std::size_t pep_batch(std::istream& in, std::ostream& out) {
    std::size_t errors = 0;
    std::string line;
    std::size_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        json reply;
        json request = json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (request.is_discarded()) {
            reply = json{{"ok", false},
                         {"error", "line " + std::to_string(line_no) + " is not valid JSON"}};
        } else {
            reply = pep_eval(request);
        }
        if (!reply["ok"].get<bool>()) ++errors;
        // Replace invalid UTF-8 from the input rather than throwing while writing the answer.
        out << reply.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
    }
    out.flush();
    return errors;
}

}  // namespace aitk::app
