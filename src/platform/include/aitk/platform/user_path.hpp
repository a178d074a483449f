#pragma once
// The user's own PATH setting, and the text edits on PATH lists that `self install` and
// `self uninstall` make to it. Windows keeps the user's part of PATH in the "Path" value under
// HKCU\Environment (the system's part lives under HKLM and is never touched); other systems
// keep it in shell start-up files, which aitk-env never edits unasked, so they have no store.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/util/subprocess.hpp"

namespace aitk::platform {

// How a PATH list is spelt: ';' between entries and case-insensitive names (Windows), or ':'
// and exact names (everything else).
enum class PathListStyle { windows, posix };

// Whether one entry of `list` names `dir`. Entries are compared after surrounding quotes and
// trailing separators are dropped and, for Windows, %VARIABLE% references are expanded with
// `env` (a REG_EXPAND_SZ Path may say %LOCALAPPDATA%\Programs\aitk-env\bin), ignoring case.
bool path_list_has(std::string_view list, std::string_view dir, PathListStyle style,
                   const util::Environment& env);

// `list` with `dir` as its first entry; `list` itself when an entry already names it.
std::string path_list_with(std::string_view list, std::string_view dir, PathListStyle style,
                           const util::Environment& env);

// `list` without any entry that names `dir`; the other entries keep their spelling and order
// (empty entries are dropped).
std::string path_list_without(std::string_view list, std::string_view dir, PathListStyle style,
                              const util::Environment& env);

// The user's PATH value where the system keeps it for new processes.
struct UserPathValue {
    std::string text;        // UTF-8
    bool expandable = true;  // Windows: REG_EXPAND_SZ (true) or REG_SZ
};

class UserPathStore {
  public:
    virtual ~UserPathStore() = default;
    // Where it lives, for messages ("HKCU\Environment\Path").
    virtual std::string location() const = 0;
    // nullopt when the value does not exist yet. Throws util::Error when it cannot be read or
    // is not text.
    virtual std::optional<UserPathValue> read() = 0;
    // Writes the value (an empty text removes it). Throws util::Error.
    virtual void write(const UserPathValue& value) = 0;
    // Tells running programs (Explorer, new terminals) that the environment changed; best
    // effort, false when nobody could be told.
    virtual bool announce() = 0;
};

// HKCU\Environment's Path on Windows; nullptr elsewhere (shell files are the user's).
std::unique_ptr<UserPathStore> system_user_path_store();

}  // namespace aitk::platform
