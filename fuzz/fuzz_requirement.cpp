// Fuzzes PEP 508: requirement and marker parsing, marker evaluation and the to_string() round
// trip of both.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/requirement.hpp"

namespace {

aitk::pep::MarkerEnvironment linux_cp312() {
    aitk::pep::MarkerEnvironment env;
    (void)env.set("implementation_name", "cpython");
    (void)env.set("implementation_version", "3.12.1");
    (void)env.set("os_name", "posix");
    (void)env.set("platform_machine", "x86_64");
    (void)env.set("platform_release", "6.8.0-45-generic");
    (void)env.set("platform_system", "Linux");
    (void)env.set("platform_version", "#45-Ubuntu SMP");
    (void)env.set("python_full_version", "3.12.1");
    (void)env.set("platform_python_implementation", "CPython");
    (void)env.set("python_version", "3.12");
    (void)env.set("sys_platform", "linux");
    return env;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace aitk::pep;
    static const MarkerEnvironment env = linux_cp312();
    std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto req = Requirement::parse(text)) {
        auto again = Requirement::parse(req->to_string());
        if (!again || again->to_string() != req->to_string()) std::abort();
        if (req->marker()) (void)req->marker()->evaluate(env);
    }
    if (auto marker = Marker::parse(text)) {
        auto again = Marker::parse(marker->to_string());
        if (!again || again->to_string() != marker->to_string()) std::abort();
        auto a = marker->evaluate(env);
        auto b = again->evaluate(env);
        if (a.has_value() != b.has_value() || (a && *a != *b)) std::abort();
    }
    return 0;
}
