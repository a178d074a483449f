#include "aitk/python/interpreter_cache.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <system_error>

#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"
#include "probe_answer.hpp"

namespace aitk::python {

namespace {

constexpr int kFormatVersion = 1;
// Old entries of interpreters long gone are dropped on save; this bounds the file regardless.
constexpr std::size_t kMaxEntries = 512;

}  // namespace

std::optional<FileStamp> stamp_of(const std::filesystem::path& path) {
    std::error_code ec;
    auto real = std::filesystem::canonical(path, ec);
    if (ec || !std::filesystem::is_regular_file(real, ec)) return std::nullopt;
    auto size = std::filesystem::file_size(real, ec);
    if (ec) return std::nullopt;
    auto mtime = std::filesystem::last_write_time(real, ec);
    if (ec) return std::nullopt;
    FileStamp stamp;
    stamp.real_path = real;
    stamp.size = size;
    stamp.mtime_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count();
    return stamp;
}

std::filesystem::path default_interpreter_cache_file(const std::filesystem::path& cache_root) {
    return cache_root / std::string(cache::layout_version) / "interpreters.json";
}

InterpreterCache::InterpreterCache(std::filesystem::path file)
    : file_(std::move(file)), entries_(read(file_)) {}

std::map<std::string, InterpreterCache::Entry> InterpreterCache::read(
    const std::filesystem::path& file) {
    std::map<std::string, Entry> out;
    if (file.empty()) return out;
    std::string text;
    try {
        text = fs::read_file(file);
    } catch (const util::Error&) {
        return out;  // missing or unreadable: start empty
    }
    auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || doc.value("version", 0) != kFormatVersion) {
        return out;
    }
    auto interpreters = doc.find("interpreters");
    if (interpreters == doc.end() || !interpreters->is_object()) return out;
    for (const auto& [path, value] : interpreters->items()) {
        if (!value.is_object()) continue;
        auto mtime = value.find("mtime_ns");
        auto size = value.find("size");
        auto answer = value.find("answer");
        if (mtime == value.end() || !mtime->is_number_integer() || size == value.end() ||
            !size->is_number_unsigned() || answer == value.end() || !answer->is_object()) {
            continue;
        }
        out[path] = Entry{mtime->get<std::int64_t>(), size->get<std::uint64_t>(), answer->dump()};
    }
    return out;
}

std::optional<Interpreter> InterpreterCache::find(const FileStamp& stamp) const {
    auto it = entries_.find(util::utf8_of(stamp.real_path));
    if (it == entries_.end() || it->second.mtime_ns != stamp.mtime_ns ||
        it->second.size != stamp.size) {
        return std::nullopt;
    }
    auto parsed = detail::parse_probe_answer(it->second.answer);
    if (!parsed) return std::nullopt;
    parsed->executable = stamp.real_path;
    return std::move(*parsed);
}

void InterpreterCache::put(const FileStamp& stamp, const std::string& answer) {
    Entry entry{stamp.mtime_ns, stamp.size, answer};
    entries_[util::utf8_of(stamp.real_path)] = entry;
    added_[util::utf8_of(stamp.real_path)] = std::move(entry);
}

void InterpreterCache::save() {
    if (file_.empty() || added_.empty()) return;
    // Another process may have saved since we read: keep its entries, ours win.
    auto merged = read(file_);
    for (auto& [path, entry] : added_)
        merged[path] = entry;
    nlohmann::json interpreters = nlohmann::json::object();
    for (const auto& [path, entry] : merged) {
        if (interpreters.size() >= kMaxEntries) break;
        std::error_code ec;
        if (!added_.count(path) && !std::filesystem::exists(path, ec)) continue;
        auto answer = nlohmann::json::parse(entry.answer, nullptr, false);
        if (answer.is_discarded() || !answer.is_object()) continue;
        interpreters[path] = {
            {"mtime_ns", entry.mtime_ns}, {"size", entry.size}, {"answer", answer}};
    }
    nlohmann::json doc = {{"version", kFormatVersion}, {"interpreters", interpreters}};
    try {
        std::error_code ec;
        std::filesystem::create_directories(file_.parent_path(), ec);
        fs::write_file_atomic(file_, doc.dump(1) + "\n");
        added_.clear();
    } catch (const util::Error&) {
        // A read-only cache only costs the next run its probes.
    }
}

}  // namespace aitk::python
