#include "aitk/platform/gpu_models.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <regex>

#include "aitk/util/strings.hpp"
#include "table_error.hpp"

namespace aitk::embedded {
std::string_view gpu_models_yaml();
}  // namespace aitk::embedded

namespace aitk::platform {

struct GpuModelTable::Compiled {
    std::vector<std::optional<std::regex>> regexes;  // per row; nullopt for whole-word rows
};

namespace {

// Drivers print names with irregular spacing ("Model: \t\t NVIDIA ..."); matching sees one space
// per run of whitespace.
std::string normalize_name(std::string_view name) {
    std::string out;
    for (char c : util::trim(name)) {
        bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        if (space) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

// Length of the longest whole-word occurrence of `words` (lower case) in `name` (lower case).
std::size_t whole_word_match(const std::string& name, const std::string& words) {
    for (std::size_t at = name.find(words); at != std::string::npos;
         at = name.find(words, at + 1)) {
        std::size_t end = at + words.size();
        bool starts = at == 0 || !util::is_ascii_alnum(name[at - 1]);
        bool ends = end == name.size() || !util::is_ascii_alnum(name[end]);
        if (starts && ends) return words.size();
    }
    return 0;
}

std::size_t regex_match_length(const std::string& name, const std::regex& re) {
    std::size_t best = 0;
    for (auto it = std::sregex_iterator(name.begin(), name.end(), re); it != std::sregex_iterator();
         ++it) {
        best = std::max(best, static_cast<std::size_t>(it->length()));
    }
    return best;
}

// Thrown only inside this file and caught by parse_gpu_models; carries the finished message.
using detail::TableError;

class Reader {
  public:
    explicit Reader(std::string_view name) : name_(name) {}

    std::string where(const YAML::Node& node) const {
        std::string out(name_);
        if (node.IsDefined() && node.Mark().line >= 0) {
            out += ":" + std::to_string(node.Mark().line + 1) + ":" +
                   std::to_string(node.Mark().column + 1);
        }
        return out;
    }

    [[noreturn]] void fail(const YAML::Node& node, const std::string& path,
                           const std::string& what) const {
        throw TableError{where(node) + ": " + (path.empty() ? "" : path + ": ") + what};
    }

    std::optional<std::string> string(const YAML::Node& map, const char* key,
                                      const std::string& path, bool required) const {
        YAML::Node v = map[key];
        if (!v.IsDefined() || v.IsNull()) {
            if (required) fail(map, path, std::string("missing key \"") + key + "\"");
            return std::nullopt;
        }
        if (!v.IsScalar()) fail(v, path + "." + key, "expected a string");
        return v.Scalar();
    }

  private:
    std::string_view name_;
};

constexpr const char* kRowKeys[] = {"name", "regex", "capability", "source", "unverified"};

GpuModelRow read_row(const Reader& r, const YAML::Node& n, const std::string& path,
                     std::optional<std::regex>& compiled) {
    if (!n.IsMap()) r.fail(n, path, "expected a mapping");
    for (const auto& entry : n) {
        std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string();
        if (std::find(std::begin(kRowKeys), std::end(kRowKeys), key) == std::end(kRowKeys)) {
            r.fail(entry.first, path,
                   "unknown key \"" + key +
                       "\" (expected name or regex, capability, source, unverified)");
        }
    }
    GpuModelRow row;
    row.line = n.Mark().line >= 0 ? static_cast<std::size_t>(n.Mark().line) + 1 : 0;
    auto name = r.string(n, "name", path, false);
    auto regex = r.string(n, "regex", path, false);
    if (name.has_value() == regex.has_value())
        r.fail(n, path, "expected exactly one of \"name\" and \"regex\"");
    row.is_regex = regex.has_value();
    row.pattern = row.is_regex ? *regex : *name;
    const char* key = row.is_regex ? "regex" : "name";
    const YAML::Node pattern_node = n[key];
    std::string pattern_path = path + "." + key;
    if (row.pattern.empty()) r.fail(pattern_node, pattern_path, "must not be empty");
    if (row.is_regex) {
        try {
            compiled.emplace(row.pattern, std::regex::ECMAScript | std::regex::icase);
        } catch (const std::regex_error& e) {
            r.fail(pattern_node, pattern_path,
                   "invalid regular expression \"" + row.pattern + "\": " + e.what());
        }
        if (std::regex_search(std::string(), *compiled))
            r.fail(pattern_node, pattern_path, "matches an empty name, so it would match any");
    } else if (normalize_name(row.pattern) != row.pattern) {
        r.fail(
            pattern_node, pattern_path,
            "\"" + row.pattern + "\" must have single spaces between words and none around them");
    }
    std::string cc = *r.string(n, "capability", path, true);
    auto parsed = ComputeCapability::parse(cc);
    if (!parsed) r.fail(n["capability"], path + ".capability", parsed.error().message);
    row.capability = *parsed;
    row.source = *r.string(n, "source", path, true);
    row.unverified = r.string(n, "unverified", path, false).value_or("");
    return row;
}

}  // namespace

std::optional<GpuModelMatch> GpuModelTable::lookup(std::string_view name) const {
    std::string text = normalize_name(name);
    std::string lower = util::to_lower(text);
    std::optional<GpuModelMatch> best;
    std::size_t best_length = 0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const auto& re = compiled_->regexes[i];
        std::size_t length = re ? regex_match_length(text, *re)
                                : whole_word_match(lower, util::to_lower(rows_[i].pattern));
        if (length > best_length) {
            best_length = length;
            best = GpuModelMatch{rows_[i].capability, &rows_[i]};
        }
    }
    return best;
}

Parsed<GpuModelTable> parse_gpu_models(std::string_view yaml, std::string_view name) {
    Reader r(name);
    try {
        YAML::Node root = YAML::Load(std::string(yaml));
        if (!root.IsMap()) r.fail(root, "", "expected a mapping at the top level");
        auto format = r.string(root, "format", "", true);
        if (*format != "1")
            r.fail(root["format"], "format", "unsupported format (this aitk-env reads format 1)");
        YAML::Node models = root["models"];
        if (!models.IsDefined() || models.IsNull()) r.fail(root, "", "missing key \"models\"");
        if (!models.IsSequence()) r.fail(models, "models", "expected a list");

        GpuModelTable table;
        table.name_ = std::string(name);
        auto compiled = std::make_shared<GpuModelTable::Compiled>();
        for (std::size_t i = 0; i < models.size(); ++i) {
            std::string path = "models[" + std::to_string(i) + "]";
            std::optional<std::regex> re;
            GpuModelRow row = read_row(r, models[i], path, re);
            for (const auto& other : table.rows_) {
                if (other.is_regex == row.is_regex && util::iequals(other.pattern, row.pattern)) {
                    r.fail(models[i], path,
                           "\"" + row.pattern + "\" repeats the row at line " +
                               std::to_string(other.line));
                }
            }
            table.rows_.push_back(std::move(row));
            compiled->regexes.push_back(std::move(re));
        }
        table.compiled_ = std::move(compiled);
        return table;
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

const Parsed<GpuModelTable>& builtin_gpu_models() {
    static const Parsed<GpuModelTable> table =
        parse_gpu_models(embedded::gpu_models_yaml(), "manifests/gpu-models.yaml");
    return table;
}

void infer_compute_capabilities(HardwareProbe& probe, const GpuModelTable& table) {
    std::vector<std::string> lines;
    bool found = false;
    std::size_t index = 0;
    for (auto& gpu : probe.gpus) {
        if (gpu.vendor != GpuVendor::nvidia) continue;
        std::string label = "GPU " + std::to_string(index++) + " (" + gpu.name + ")";
        if (gpu.compute_capability || gpu.name.empty()) continue;
        auto match = table.lookup(gpu.name);
        if (!match) {
            lines.push_back(label + ": no row matches the name");
            continue;
        }
        found = true;
        gpu.compute_capability = match->capability;
        gpu.compute_capability_source = CapabilitySource::model_name_table;
        lines.push_back(label + ": " + match->capability.to_string() + " from \"" +
                        match->row->pattern + "\" (" + table.name() + ":" +
                        std::to_string(match->row->line) +
                        (match->row->unverified.empty() ? "" : ", unverified") + ")");
    }
    if (lines.empty()) return;
    probe.attempts.push_back(ProbeAttempt{std::string(kModelNameTableSource),
                                          found ? AttemptOutcome::answered : AttemptOutcome::absent,
                                          util::join(lines, "; ")});
}

void forget_inferred_capabilities(HardwareProbe& probe) {
    for (auto& gpu : probe.gpus) {
        if (gpu.compute_capability_source != CapabilitySource::model_name_table) continue;
        gpu.compute_capability.reset();
        gpu.compute_capability_source = CapabilitySource::reported;
    }
    std::erase_if(probe.attempts,
                  [](const ProbeAttempt& a) { return a.source == kModelNameTableSource; });
}

}  // namespace aitk::platform
