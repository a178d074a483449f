#pragma once
// Test-data helpers shared by the test executables.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace aitk::test {

inline std::string data_path(const std::string& relative) {
    return std::string(AITK_TEST_DATA_DIR) + "/" + relative;
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open test data " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Loads tests/data/conformance/<name>.json.
inline nlohmann::json conformance(const std::string& name) {
    return nlohmann::json::parse(read_text(data_path("conformance/" + name + ".json")));
}

}  // namespace aitk::test
