#include "aitk/build/wheel_cache.hpp"

#include <system_error>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::build {

namespace stdfs = std::filesystem;

namespace {

// Tags become folder names: keep them to what tags are made of.
std::string checked_tag(std::string_view tag, std::string_view what) {
    bool ok = !tag.empty();
    for (char c : tag) {
        if (!util::is_ascii_alnum(c) && c != '_' && c != '.') ok = false;
    }
    if (!ok) {
        throw util::Error(util::ExitCode::failure, "built-wheel cache: '" + std::string(tag) +
                                                       "' is not a valid " + std::string(what) +
                                                       " tag");
    }
    return util::to_lower(tag);
}

// Config settings change what a backend builds, so they are part of what was built.
std::string source_digest(const WheelCacheKey& key) {
    if (key.source_id.empty()) {
        throw util::Error(util::ExitCode::failure, "built-wheel cache: empty source id");
    }
    std::string identity = key.source_id;
    for (const auto& [name, value] : key.config_settings) {
        identity += '\n' + name + '=' + value;
    }
    return fs::sha256_hex(identity);
}

std::string identity_text(const WheelCacheKey& key) {
    std::string text = key.source_id + "\n";
    for (const auto& [name, value] : key.config_settings) {
        text += "config " + name + "=" + value + "\n";
    }
    return text;
}

}  // namespace

std::string interpreter_tag(const python::Interpreter& interpreter) {
    auto parts = util::split(interpreter.version, '.');
    std::string digits = parts.size() >= 2 ? std::string(parts[0]) + std::string(parts[1])
                                           : std::string(interpreter.version);
    std::string prefix = util::iequals(interpreter.implementation, "PyPy") ? "pp" : "cp";
    return prefix + digits + (interpreter.free_threaded ? "t" : "");
}

std::string platform_key(const python::Interpreter& interpreter) {
    std::string os = interpreter.sys_platform.empty() ? "unknown" : interpreter.sys_platform;
    if (os == "win32") os = "win";
    std::string machine =
        util::to_lower(interpreter.machine.empty() ? "unknown" : interpreter.machine);
    std::string key = os + "_" + machine;
    for (char& c : key) {
        if (!util::is_ascii_alnum(c) && c != '_') c = '_';
    }
    return key;
}

WheelCacheKey WheelCacheKey::for_interpreter(std::string source_id,
                                             const python::Interpreter& interpreter,
                                             ConfigSettings config_settings) {
    return WheelCacheKey{std::move(source_id), interpreter_tag(interpreter),
                         platform_key(interpreter), std::move(config_settings)};
}

BuiltWheelCache::BuiltWheelCache(cache::Cache cache) : cache_(std::move(cache)) {}

stdfs::path BuiltWheelCache::entry_dir(const WheelCacheKey& key) const {
    std::string digest = source_digest(key);
    return cache_.base() / "built-wheels" / digest.substr(0, 2) / digest.substr(2) /
           (checked_tag(key.interpreter, "interpreter") + "-" +
            checked_tag(key.platform, "platform"));
}

std::optional<stdfs::path> BuiltWheelCache::find(const WheelCacheKey& key) const {
    std::error_code ec;
    for (const auto& entry : stdfs::directory_iterator(entry_dir(key), ec)) {
        if (entry.path().extension() == ".whl" && entry.is_regular_file(ec)) return entry.path();
    }
    return std::nullopt;
}

fs::FileLock BuiltWheelCache::lock(const WheelCacheKey& key) const {
    const stdfs::path entry = entry_dir(key);  // checks the tags before they name a file
    return fs::FileLock::acquire(
        cache_.base() / "locks" /
            ("built-wheel-" + util::utf8_of(entry.parent_path().filename()) + "-" +
             util::utf8_of(entry.filename()) + ".lock"),
        fs::LockMode::exclusive);
}

stdfs::path BuiltWheelCache::store(const WheelCacheKey& key, const stdfs::path& wheel) const {
    if (auto existing = find(key)) return *existing;
    const stdfs::path dir = entry_dir(key);
    auto in_use = cache_.hold();
    auto staging = fs::TempDir::create_in(cache_.temp_dir(), "built-wheel");
    const stdfs::path entry = staging.path() / "entry";
    stdfs::create_directories(entry);
    stdfs::copy_file(wheel, entry / wheel.filename());
    fs::write_file_atomic(entry / "source.txt", identity_text(key));
    stdfs::create_directories(dir.parent_path());
    fs::publish(entry, dir);  // already there: another process stored the same build first
    if (auto stored = find(key)) return *stored;
    throw util::Error(util::ExitCode::failure, "built-wheel cache: " + util::utf8_of(dir) +
                                                   " holds no wheel after storing one");
}

}  // namespace aitk::build
