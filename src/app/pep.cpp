#include "aitk/app/pep.hpp"

#include <istream>
#include <ostream>
#include <string>

#include "aitk/pep/version.hpp"

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

using Handler = json (*)(const json&);
struct Op {
    const char* name;
    Handler handler;
};

constexpr Op kOps[] = {
    {"normalize", op_normalize},
    {"compare", op_compare},
    {"version", op_version},
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
