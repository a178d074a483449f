#pragma once
// Reading YAML text back the way the tools that consume our files do: yaml-cpp (micromamba) and
// PyYAML (YAML 1.1, stricter about what stays a string than conda's ruamel.yaml). Both give
// JSON in which every scalar is a string, so "1.10" read as the float 1.1 or "yes" read as
// true shows up as a different string.
#include <filesystem>
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "aitk/util/subprocess.hpp"

namespace aitk::test {

inline nlohmann::json yaml_cpp_to_json(const YAML::Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Sequence: {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& item : node)
                out.push_back(yaml_cpp_to_json(item));
            return out;
        }
        case YAML::NodeType::Map: {
            nlohmann::json out = nlohmann::json::object();
            for (const auto& entry : node) {
                out[entry.first.Scalar()] = yaml_cpp_to_json(entry.second);
            }
            return out;
        }
        case YAML::NodeType::Scalar:
            return node.Scalar();
        default:
            return nullptr;
    }
}

inline nlohmann::json read_with_yaml_cpp(const std::string& text) {
    return yaml_cpp_to_json(YAML::Load(text));
}

// A Python with PyYAML, or nullopt (tests that need it skip).
inline std::optional<std::string> python_with_pyyaml() {
    for (const char* candidate : {"/usr/bin/python3", "/root/.pyenv/versions/3.11.7/bin/python"}) {
        if (!std::filesystem::exists(candidate)) continue;
        util::ProcessRequest request;
        request.argv = {candidate, "-c", "import yaml"};
        const auto result = util::run_process(request);
        if (result && result->succeeded()) return std::string(candidate);
    }
    return std::nullopt;
}

// yaml.safe_load, then every scalar as text: a str stays as it is, True becomes "true", an int
// its digits, anything else "<type>value" (the float 1.1 "<float>1.1"). Throws when Python
// fails.
inline nlohmann::json read_with_pyyaml(const std::string& python, const std::string& text) {
    static constexpr const char* script = R"(
import json, sys, yaml
def text(v):
    if isinstance(v, dict): return {str(k) if not isinstance(k, str) else k: text(x) for k, x in v.items()}
    if isinstance(v, list): return [text(x) for x in v]
    if v is None: return None
    if isinstance(v, bool): return "true" if v else "false"
    if isinstance(v, str): return v
    if isinstance(v, int): return str(v)
    return "<%s>%s" % (type(v).__name__, v)
doc = yaml.safe_load(sys.stdin.buffer.read().decode("utf-8"))
sys.stdout.write(json.dumps(text(doc)))
)";
    util::ProcessRequest request;
    request.argv = {python, "-c", script};
    request.stdin_data = text;
    const auto result = util::run_process(request);
    if (!result || !result->succeeded()) {
        throw std::runtime_error("PyYAML failed: " +
                                 (result ? result->err : result.error().message));
    }
    return nlohmann::json::parse(result->out);
}

}  // namespace aitk::test
