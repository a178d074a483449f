#pragma once
// Test-data helpers shared by the test executables.
#include <string>

#include <nlohmann/json.hpp>

#include "test_files.hpp"

namespace aitk::test {

inline std::string data_path(const std::string& relative) {
    return std::string(AITK_TEST_DATA_DIR) + "/" + relative;
}

// Loads tests/data/conformance/<name>.json.
inline nlohmann::json conformance(const std::string& name) {
    return nlohmann::json::parse(read_file(data_path("conformance/" + name + ".json")));
}

}  // namespace aitk::test
