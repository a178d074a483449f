#pragma once
// Puts a file of the cache's unpacked tree into the prefix: reflink (a copy-on-write clone),
// else hardlink, else copy. The way is decided on the first file and kept; a later file that
// cannot go that way (another filesystem inside the prefix, too many links) is copied.
// Private to the install layer.
#include <string>

#include "aitk/install/wheel_install.hpp"
#include "folder.hpp"

namespace aitk::install::detail {

class Linker {
  public:
    // `automatic` tries reflink, hardlink, copy; `reflink` and `hardlink` fall back to copy
    // when the filesystem cannot do them.
    explicit Linker(LinkMode requested) : requested_(requested) {}

    // Places `from`/`from_relative` at `to`/`to_relative`, replacing what is there (never
    // writing through it). Throws util::Error on errors other than "cannot link here".
    void place(const Folder& from, const char* from_relative, const Folder& to,
               const char* to_relative);

    // What the first file settled on (copy until then).
    LinkMode used() const noexcept { return decided_ ? settled_ : LinkMode::copy; }

  private:
    enum class Outcome { placed, unsupported };
    Outcome reflink(const Folder& from, const char* from_relative, const Folder& to,
                    const char* to_relative);
    Outcome hardlink(const Folder& from, const char* from_relative, const Folder& to,
                     const char* to_relative);
    void copy(const Folder& from, const char* from_relative, const Folder& to,
              const char* to_relative);

    LinkMode requested_;
    LinkMode settled_ = LinkMode::copy;
    bool decided_ = false;
};

}  // namespace aitk::install::detail
