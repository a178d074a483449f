#pragma once
// The net layer's names for the credential helpers, which live in util so that every layer
// (cache keys, index errors, lockfiles) redacts the same way.
#include "aitk/util/redact.hpp"

namespace aitk::net {

using util::has_credentials;
using util::redact_url;
using util::scrub_credentials;

}  // namespace aitk::net
