#include "aitk/python/standalone.hpp"

#include <nlohmann/json.hpp>

#include <charconv>

#include "aitk/util/strings.hpp"

namespace aitk::embedded {
std::string_view python_builds_json();
}

namespace aitk::python {
namespace {

std::optional<std::vector<unsigned>> numbers_of(std::string_view text) {
    std::vector<unsigned> out;
    for (auto part : util::split(text, '.')) {
        unsigned value = 0;
        auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
        if (ec != std::errc() || end != part.data() + part.size() || part.empty()) {
            return std::nullopt;
        }
        out.push_back(value);
    }
    return out;
}

}  // namespace

util::Expected<std::vector<StandaloneBuild>, std::string> parse_standalone_builds(
    std::string_view json) {
    auto doc = nlohmann::json::parse(json, nullptr, false);
    if (doc.is_discarded() || !doc.is_array()) {
        return util::Unexpected<std::string>("python-builds.json: expected a JSON array");
    }
    std::vector<StandaloneBuild> builds;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const auto& entry = doc[i];
        StandaloneBuild build;
        for (auto [key, field] :
             {std::pair{"implementation", &build.implementation}, {"version", &build.version},
              {"build", &build.build}, {"os", &build.os}, {"arch", &build.arch},
              {"libc", &build.libc}, {"url", &build.url}, {"sha256", &build.sha256}}) {
            if (!entry.is_object() || !entry.contains(key) || !entry[key].is_string()) {
                return util::Unexpected<std::string>("python-builds.json: entry " +
                                                     std::to_string(i + 1) + " lacks the string '" +
                                                     key + "'");
            }
            *field = entry[key].get<std::string>();
        }
        if (!numbers_of(build.version)) {
            return util::Unexpected<std::string>("python-builds.json: entry " +
                                                 std::to_string(i + 1) + " has version '" +
                                                 build.version + "', expected X.Y.Z");
        }
        builds.push_back(std::move(build));
    }
    return builds;
}

const std::vector<StandaloneBuild>& standalone_builds() {
    static const std::vector<StandaloneBuild> builds = [] {
        auto parsed = parse_standalone_builds(embedded::python_builds_json());
        return parsed ? std::move(*parsed) : std::vector<StandaloneBuild>{};
    }();
    return builds;
}

std::optional<std::string> full_python_version(std::string_view request,
                                               const std::vector<StandaloneBuild>& builds) {
    auto wanted = numbers_of(request);
    if (!wanted || wanted->size() < 2 || wanted->size() > 3) return std::nullopt;
    if (wanted->size() == 3) return std::string(request);
    std::optional<std::vector<unsigned>> best;
    std::string best_text;
    for (const auto& build : builds) {
        auto have = numbers_of(build.version);
        if (!have || have->size() != 3 || (*have)[0] != (*wanted)[0] ||
            (*have)[1] != (*wanted)[1]) {
            continue;
        }
        if (!best || *have > *best) {
            best = have;
            best_text = build.version;
        }
    }
    if (!best) return std::nullopt;
    return best_text;
}

}  // namespace aitk::python
