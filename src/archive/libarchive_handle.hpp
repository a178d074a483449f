#pragma once
// Private to the archive layer: owning handles for libarchive objects.
#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <string>

#if defined(__GLIBC__) || defined(__APPLE__)
#include <locale.h>
#define AITK_ARCHIVE_THREAD_LOCALE 1
#endif

namespace aitk::archive::detail {

struct ReadFree {
    void operator()(struct archive* a) const noexcept { archive_read_free(a); }
};
struct WriteFree {
    void operator()(struct archive* a) const noexcept { archive_write_free(a); }
};
struct EntryFree {
    void operator()(struct archive_entry* e) const noexcept { archive_entry_free(e); }
};

using ReadHandle = std::unique_ptr<struct archive, ReadFree>;
using WriteHandle = std::unique_ptr<struct archive, WriteFree>;
using EntryHandle = std::unique_ptr<struct archive_entry, EntryFree>;

inline std::string error_text(struct archive* a, const char* fallback) {
    const char* text = a != nullptr ? archive_error_string(a) : nullptr;
    return text != nullptr ? std::string(text) : std::string(fallback);
}

// libarchive converts names between UTF-8 and the charset of the current locale; in the "C"
// locale of a plain program it cannot represent non-ASCII names at all (they come back empty).
// While one of these lives, the calling thread (only) uses a UTF-8 character type locale.
class Utf8Names {
  public:
    Utf8Names() noexcept {
#ifdef AITK_ARCHIVE_THREAD_LOCALE
        if (locale_t utf8 = utf8_locale(); utf8 != locale_t{}) previous_ = uselocale(utf8);
#endif
    }
    ~Utf8Names() {
#ifdef AITK_ARCHIVE_THREAD_LOCALE
        if (previous_ != locale_t{}) uselocale(previous_);
#endif
    }
    Utf8Names(const Utf8Names&) = delete;
    Utf8Names& operator=(const Utf8Names&) = delete;

  private:
#ifdef AITK_ARCHIVE_THREAD_LOCALE
    // Made once, kept for the life of the process.
    static locale_t utf8_locale() noexcept {
        static const locale_t utf8 = [] {
            for (const char* name : {"C.UTF-8", "C.utf8", "en_US.UTF-8"}) {
                if (locale_t l = newlocale(LC_CTYPE_MASK, name, locale_t{}); l != locale_t{}) {
                    return l;
                }
            }
            return locale_t{};
        }();
        return utf8;
    }
    locale_t previous_{};
#endif
};

}  // namespace aitk::archive::detail
