#include "aitk/diag/image_problem.hpp"

#include <cstdio>

namespace aitk::diag {

std::string ImageProblem::describe() const {
    char where[40];
    std::snprintf(where, sizeof where, " (at byte 0x%llx)",
                  static_cast<unsigned long long>(offset));
    return message + where;
}

}  // namespace aitk::diag
