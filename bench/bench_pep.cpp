// The C++ side of the pep benchmark: parses and sorts the versions of versions.txt, then
// evaluates every (specifier, version) check of checks.txt. Prints one `name seconds` line per
// phase, in the format of bench/pep_packaging.py.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "aitk/pep/specifier.hpp"
#include "aitk/pep/version.hpp"

namespace {

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
    using aitk::pep::SpecifierSet;
    using aitk::pep::Version;
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_pep DATA_DIR\n");
        return 2;
    }
    std::string data = argv[1];
    std::vector<std::string> versions = read_lines(data + "/versions.txt");
    std::vector<std::string> checks = read_lines(data + "/checks.txt");

    auto start = std::chrono::steady_clock::now();
    std::vector<Version> parsed;
    parsed.reserve(versions.size());
    for (const auto& text : versions) {
        auto v = Version::parse(text);
        if (!v) {
            std::fprintf(stderr, "bad version %s\n", text.c_str());
            return 1;
        }
        parsed.push_back(*std::move(v));
    }
    std::sort(parsed.begin(), parsed.end());
    std::printf("versions_parse_sort %.6f\n", seconds_since(start));

    std::unordered_map<std::string, SpecifierSet> sets;
    std::size_t hits = 0;
    start = std::chrono::steady_clock::now();
    for (const auto& line : checks) {
        std::size_t tab = line.find('\t');
        std::string spec = line.substr(0, tab);
        auto it = sets.find(spec);
        if (it == sets.end()) {
            auto s = SpecifierSet::parse(spec);
            if (!s) return 1;
            it = sets.emplace(spec, *std::move(s)).first;
        }
        auto v = Version::parse(std::string_view(line).substr(tab + 1));
        if (v && it->second.contains(*v)) ++hits;
    }
    std::printf("specifier_checks %.6f\n", seconds_since(start));
    std::printf("hits %zu\n", hits);
    std::printf("first_last %s %s\n", parsed.front().to_string().c_str(),
                parsed.back().to_string().c_str());
    return 0;
}
