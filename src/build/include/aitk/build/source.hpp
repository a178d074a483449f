#pragma once
// What a build starts from: a project folder, an sdist file or a git commit. A build never
// changes its source: archives are unpacked and shared checkouts copied into the build's own
// scratch folder, and only then does a backend run.
#include <filesystem>
#include <string>

#include "aitk/build/git.hpp"
#include "aitk/build/git_url.hpp"

namespace aitk::build {

class BuildSource {
  public:
    // A local project, built in place (backends may write build/ or *.egg-info into it). Not
    // cached: its content has no id.
    static BuildSource directory(std::filesystem::path project);
    // An sdist archive whose sha256 is known (the lock records it).
    static BuildSource sdist(std::filesystem::path archive, std::string sha256);
    // A commit of a git repository (url.revision is ignored; `commit` is a full id). The
    // checkout is made only when the build really runs (not on a cache hit). `git` must
    // outlive the source.
    static BuildSource git(GitCache& git, pep::VcsUrl url, std::string commit);

    // The built-wheel cache id (sdist_source_id / git_source_id); empty for a directory.
    const std::string& id() const noexcept { return id_; }
    // For messages: the folder, the archive's file name, or the git URL at its commit.
    const std::string& label() const noexcept { return label_; }

    // The project folder a backend may write into: a directory source's own folder, an sdist
    // unpacked into `scratch`, or a copy of the git checkout in `scratch` (with the project in
    // its subdirectory). `scratch` exists and is empty.
    std::filesystem::path materialize(const std::filesystem::path& scratch) const;

  private:
    enum class Kind { directory, sdist, git };
    BuildSource() = default;

    Kind kind_ = Kind::directory;
    std::filesystem::path path_;
    GitCache* git_ = nullptr;
    pep::VcsUrl url_;
    std::string commit_;
    std::string id_;
    std::string label_;
};

}  // namespace aitk::build
