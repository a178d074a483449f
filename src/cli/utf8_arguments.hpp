#pragma once
// The command line as UTF-8. On Windows main()'s argv is in the ANSI code page, which cannot
// hold most names (a user folder "Zoë" on a Japanese system, any emoji), so the arguments are
// read again as UTF-16 and converted; elsewhere argv is used as it is.
#include <string>
#include <vector>

namespace aitk::cli {

class Utf8Arguments {
  public:
    Utf8Arguments(int argc, char** argv);
    int argc() const { return static_cast<int>(pointers_.size()) - 1; }
    char** argv() { return pointers_.data(); }

  private:
    std::vector<std::string> storage_;
    std::vector<char*> pointers_;  // into storage_, then nullptr, as argv is
};

// Makes the console show what aitk-env writes as UTF-8, and stdout/stderr carry "\n" as it is
// (Windows; nothing elsewhere).
void use_utf8_console();

}  // namespace aitk::cli
