#pragma once
// cli: the command line. Parses arguments (CLI11), runs one command, prints its output,
// and turns any Error into one `feeddiff: error: ...` line and an exit code.

namespace feeddiff {

/// Exit codes: success.
inline constexpr int kExitOk = 0;
/// Exit codes: partial failure (some sources failed) or drift found.
inline constexpr int kExitPartial = 1;
/// Exit codes: error or usage.
inline constexpr int kExitError = 2;

/// Runs feeddiff with these arguments and returns the process exit code.
int run_cli(int argc, char** argv);

}  // namespace feeddiff
