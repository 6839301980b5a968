// feeddiff's entry point: everything lives in the cli module; only it prints errors.
#include "feeddiff/cli.h"

int main(int argc, char** argv) {
  return feeddiff::run_cli(argc, argv);
}
