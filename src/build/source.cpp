#include "aitk/build/source.hpp"

#include "aitk/build/sdist.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::build {

namespace stdfs = std::filesystem;

BuildSource BuildSource::directory(stdfs::path project) {
    BuildSource source;
    source.kind_ = Kind::directory;
    source.path_ = stdfs::absolute(project).lexically_normal();
    source.label_ = util::utf8_of(source.path_);
    return source;
}

BuildSource BuildSource::sdist(stdfs::path archive, std::string sha256) {
    BuildSource source;
    source.kind_ = Kind::sdist;
    source.path_ = std::move(archive);
    source.id_ = sdist_source_id(sha256);
    source.label_ = util::utf8_of(source.path_.filename());
    return source;
}

BuildSource BuildSource::git(GitCache& git, pep::VcsUrl url, std::string commit) {
    BuildSource source;
    source.kind_ = Kind::git;
    source.git_ = &git;
    source.commit_ = util::to_lower(commit);
    source.id_ = git_source_id(url, source.commit_);
    pep::VcsUrl shown = url;
    shown.repository = util::redact_url(url.repository);
    shown.revision = source.commit_;
    source.label_ = shown.to_string();
    source.url_ = std::move(url);
    return source;
}

stdfs::path BuildSource::materialize(const stdfs::path& scratch) const {
    switch (kind_) {
        case Kind::directory:
            return path_;
        case Kind::sdist:
            return unpack_sdist(path_, scratch / "sdist").project;
        case Kind::git: {
            GitCheckout checkout = git_->checkout(url_, commit_);
            // The checkout is shared by every build of this commit: backends write into the
            // tree they build (build/, *.egg-info), so they get a copy, .git included
            // (setuptools-scm reads versions from it).
            const stdfs::path copy = scratch / "checkout";
            stdfs::copy(checkout.tree, copy,
                        stdfs::copy_options::recursive | stdfs::copy_options::copy_symlinks);
            return url_.subdirectory.empty() ? copy : copy / url_.subdirectory;
        }
    }
    return path_;
}

}  // namespace aitk::build
