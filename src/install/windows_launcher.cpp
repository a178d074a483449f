// Windows launcher files: launcher image + zip(__main__.py) + "#!<python>\n" + size + magic, the
// trailer doubling as the zip's comment (layout in aitk/install/windows_launcher.hpp).
#include "aitk/install/windows_launcher.hpp"

#include <cstdint>
#include <exception>
#include <vector>

#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/util/error.hpp"

#ifdef AITK_ENV_EMBEDDED_LAUNCHERS
namespace aitk::embedded {
std::string_view windows_launcher_console_exe();
std::string_view windows_launcher_gui_exe();
}  // namespace aitk::embedded
#endif

namespace aitk::install {
namespace {

// The zip end-of-central-directory record (APPNOTE 4.3.16): signature, disk numbers, entry
// counts, central directory size and offset, comment length. 22 bytes before the comment.
constexpr std::string_view eocd_signature = "PK\x05\x06";
constexpr std::size_t eocd_size = 22;
constexpr std::size_t eocd_cd_size_at = 12;
constexpr std::size_t eocd_cd_offset_at = 16;
constexpr std::size_t eocd_comment_size_at = 20;

constexpr std::size_t tail_size = 4 + launcher_magic.size();
// A Windows path is at most 32767 UTF-16 units, each at most 3 UTF-8 bytes; launcher.c allows
// a "#!" line this long.
constexpr std::size_t max_python_bytes = 3 * 32767;

std::uint32_t read_u32(std::string_view bytes, std::size_t at) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
    }
    return value;
}

std::uint16_t read_u16(std::string_view bytes, std::size_t at) {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[at]) |
                                      static_cast<unsigned char>(bytes[at + 1]) << 8);
}

void put_u32(std::string& out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void check_python(std::string_view python) {
    const char* why = nullptr;
    if (python.empty()) {
        why = "it is empty";
    } else if (python.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
        why = "it holds a line break or NUL";
    } else if (python.size() > max_python_bytes) {
        why = "it is longer than a Windows path can be";
    }
    if (why != nullptr) {
        throw util::Error(util::ExitCode::failure,
                          "cannot record the interpreter path '" + std::string(python) +
                              "' in a Windows launcher: " + std::string(why));
    }
}

}  // namespace

const WindowsLaunchers* embedded_windows_launchers() noexcept {
#ifdef AITK_ENV_EMBEDDED_LAUNCHERS
    static const WindowsLaunchers images{std::string(embedded::windows_launcher_console_exe()),
                                         std::string(embedded::windows_launcher_gui_exe())};
    return &images;
#else
    return nullptr;
#endif
}

std::string windows_launcher_script(const std::string& module, const std::string& function) {
    const std::string import_name = function.substr(0, function.find('.'));
    return "# -*- coding: utf-8 -*-\n"
           "import re\n"
           "import sys\n"
           "from " +
           module + " import " + import_name +
           "\n"
           "if __name__ == '__main__':\n"
           "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
           "    sys.exit(" +
           function + "())\n";
}

std::string windows_launcher_payload(std::string_view launcher_image, std::string_view python,
                                     const std::string& module, const std::string& function) {
    check_python(python);
    if (launcher_image.empty()) {
        throw util::Error(util::ExitCode::failure, "the Windows launcher image is empty");
    }
    // Stored, not deflated: a few hundred bytes gain nothing, and Python then reads the script
    // without zlib.
    auto entry =
        archive::WriteEntry::file("__main__.py", windows_launcher_script(module, function));
    entry.store = true;
    std::vector<archive::WriteEntry> entries;
    entries.push_back(std::move(entry));
    std::string zip = archive::write_archive_to_memory(archive::Format::zip, std::move(entries));
    if (zip.size() < eocd_size || zip.compare(zip.size() - eocd_size, 4, eocd_signature) != 0 ||
        read_u16(zip, zip.size() - eocd_size + eocd_comment_size_at) != 0) {
        throw util::Error(util::ExitCode::failure,
                          "the zip writer did not end the launcher's zip with a plain "
                          "end-of-central-directory record");
    }

    std::string line = "#!" + std::string(python) + "\n";
    const std::size_t comment_size = line.size() + tail_size;
    const std::size_t comment_at = zip.size() - eocd_size + eocd_comment_size_at;
    zip[comment_at] = static_cast<char>(comment_size & 0xff);
    zip[comment_at + 1] = static_cast<char>((comment_size >> 8) & 0xff);

    std::string out;
    out.reserve(launcher_image.size() + zip.size() + comment_size);
    out.append(launcher_image);
    out.append(zip);
    out.append(line);
    put_u32(out, static_cast<std::uint32_t>(line.size()));
    out.append(launcher_magic);
    return out;
}

util::Expected<LauncherContents, std::string> read_launcher_trailer(std::string_view bytes) {
    using util::Unexpected;
    if (bytes.size() < tail_size || !bytes.ends_with(launcher_magic)) {
        return Unexpected(std::string("no launcher trailer: the file does not end with ") +
                          std::string(launcher_magic));
    }
    const std::size_t line_size = read_u32(bytes, bytes.size() - tail_size);
    if (line_size < 4 || line_size > max_python_bytes + 3 || line_size > bytes.size() - tail_size) {
        return Unexpected("the trailer's \"#!\" line size " + std::to_string(line_size) +
                          " does not fit the file");
    }
    const std::size_t line_at = bytes.size() - tail_size - line_size;
    std::string_view line = bytes.substr(line_at, line_size);
    if (!line.starts_with("#!") || !line.ends_with('\n') || line.size() < 4) {
        return Unexpected(std::string("the trailer's line is not \"#!<python>\\n\""));
    }

    LauncherContents contents;
    contents.python = std::string(line.substr(2, line.size() - 3));
    if (line_at < eocd_size || bytes.compare(line_at - eocd_size, 4, eocd_signature) != 0) {
        return Unexpected(std::string("no zip end-of-central-directory record before the trailer"));
    }
    const std::size_t eocd_at = line_at - eocd_size;
    if (read_u16(bytes, eocd_at + eocd_comment_size_at) != line_size + tail_size) {
        return Unexpected(std::string("the zip comment does not cover the trailer"));
    }
    const std::uint64_t cd_size = read_u32(bytes, eocd_at + eocd_cd_size_at);
    const std::uint64_t cd_offset = read_u32(bytes, eocd_at + eocd_cd_offset_at);
    if (cd_size + cd_offset > eocd_at) {
        return Unexpected(std::string("the zip's central directory does not fit the file"));
    }
    // The zip's offsets count from its own start, which is where the launcher image ends.
    contents.image_size = eocd_at - cd_size - cd_offset;
    try {
        auto script = archive::read_member(bytes.substr(contents.image_size), "launcher",
                                           "__main__.py", 1 << 20);
        if (!script) return Unexpected(std::string("the launcher's zip has no __main__.py"));
        contents.script = std::move(*script);
    } catch (const std::exception& e) {
        return Unexpected("the launcher's zip cannot be read: " + std::string(e.what()));
    }
    return contents;
}

}  // namespace aitk::install
