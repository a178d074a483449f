// Fuzzes requirements files: the input is split at NUL bytes into the top file and two files it
// may include ("a.txt" and "sub/b.txt", served from memory), so line joining, comments, ${VAR}
// expansion, option parsing, URLs, VCS references and -r / -c recursion (cycles included) all
// see arbitrary text. The first line is also read as a single entry.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "aitk/pep/direct_reference.hpp"
#include "aitk/project/requirements_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace aitk::project;
    std::string_view input(reinterpret_cast<const char*>(data), size);
    std::string_view parts[3];
    for (auto& part : parts) {
        std::size_t nul = input.find('\0');
        part = input.substr(0, nul);
        input = nul == std::string_view::npos ? std::string_view{} : input.substr(nul + 1);
    }

    RequirementsReadOptions options;
    options.environment = {
        {"TOKEN", "s3cr3t"}, {"INDEX", "https://example.com/simple"}, {"SPACES", " a b "}};
    options.read =
        [&](const std::filesystem::path& path) -> aitk::util::Expected<std::string, std::string> {
        std::string name = path.generic_string();
        if (name == "/fuzz/a.txt") return std::string(parts[1]);
        if (name == "/fuzz/sub/b.txt") return std::string(parts[2]);
        if (name == "/fuzz/requirements.txt") return std::string(parts[0]);
        return aitk::util::Unexpected(std::string("No such file or directory"));
    };

    auto file = parse_requirements_text(parts[0], "/fuzz/requirements.txt", options);
    if (file) {
        for (const auto& line : file->requirements) {
            // Every named requirement prints back to a requirement that parses.
            if (line.requirement) {
                auto again = aitk::pep::Requirement::parse(line.requirement->to_string());
                if (!again) std::abort();
            }
            if (line.vcs) (void)line.vcs->to_string();
            (void)line.name();
        }
    } else if (file.error().where.file.empty()) {
        std::abort();  // every problem names its file
    }

    std::string_view first = parts[0].substr(0, parts[0].find('\n'));
    (void)parse_requirement_line(first, aitk::util::SourceLocation{"fuzz", 1, 1}, "/fuzz");
    (void)aitk::pep::parse_vcs_url(first);
    return 0;
}
