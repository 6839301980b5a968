// The build's paths, the one place they are compiled in (see process.h).
#include "support/process.h"

namespace feeddiff::test {

const char* const kBinaryPath = FEEDDIFF_PATH_BINARY;
const char* const kSourceDir = FEEDDIFF_PATH_SOURCE_DIR;
const char* const kCorpusDir = FEEDDIFF_PATH_CORPUS_DIR;
const char* const kTestTmp = FEEDDIFF_PATH_TEST_TMP;
const char* const kScreenshotDir = FEEDDIFF_PATH_SCREENSHOT_DIR;
const char* const kManDir = FEEDDIFF_PATH_MAN_DIR;
const char* const kVersion = FEEDDIFF_PATH_VERSION;

}  // namespace feeddiff::test
