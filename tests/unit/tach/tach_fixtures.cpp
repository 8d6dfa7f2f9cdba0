#include "tach_fixtures.h"

#include "tests/support/shared_dir.h"

#include <fstream>
#include <iterator>

namespace gilscope::test {

std::filesystem::path tachFixture(const std::string& name) {
    return fixturePath(QString::fromStdString("tach/" + name)).toStdString();
}

std::string readFileBytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

} // namespace gilscope::test
