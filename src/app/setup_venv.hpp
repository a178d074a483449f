#pragma once
// The venv step of `setup`, under the prefix lock: a crash while the venv is being made leaves
// either no venv (the next setup makes it) or a whole one, and a second setup into the same
// prefix waits instead of tripping over a half-made venv.
#include <functional>
#include <string>

#include "aitk/fs/lock.hpp"
#include "aitk/install/layout.hpp"
#include "aitk/python/venv.hpp"

namespace aitk::app {

// Takes the prefix lock (telling `notice` whom it waits for) and makes or refreshes the venv of
// `venv`; returns the held lock, for sync and the shims. A new venv is built in
// <prefix>/.aitk-env/venv.tmp and moved into place with pyvenv.cfg last. Throws util::InputError
// (as python::create_venv) when the prefix holds files that are not a venv's.
fs::FileLock lock_and_make_venv(const python::VenvRequest& venv,
                                const install::PrefixLayout& layout,
                                const std::function<void(const std::string&)>& notice = {});

}  // namespace aitk::app
