#pragma once
// Golden files: expected outputs kept under fixtures/. FEEDDIFF_UPDATE_GOLDEN=1 rewrites those
// that differ, names each, and fails the test: a run that rewrote its expectations checked
// nothing, so it must never pass (a CI with the variable set stays red). Review
// `git diff fixtures/`, then run again without the variable.

#include <string>

namespace feeddiff::test {

/// True when FEEDDIFF_UPDATE_GOLDEN is 1.
bool updating_golden();

/// Checks actual against the golden file at path (a missing file counts as different). In
/// update mode a differing file is rewritten and the test fails, naming it; an equal one
/// passes untouched.
void check_golden(const std::string& actual, const std::string& path);

}  // namespace feeddiff::test
