#include "output_test_support.h"

#include "tests/support/shared_dir.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace gilscope::test {

TmpfsMount::TmpfsMount(const fs::path& dir, size_t bytes, bool readOnly, size_t fillTo)
    : dir_(dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string options = "size=" + std::to_string(bytes) + ",mode=0777";
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
        error_ = QString("cannot mount a tmpfs on %1: %2")
                     .arg(QString::fromStdString(dir.string()), std::strerror(errno));
        return;
    }
    mounted_ = true;
    if (fillTo > 0) {
        std::ofstream filler(dir / ".filler");
        const std::string block(4096, 'f');
        for (size_t done = 0; done + block.size() <= fillTo && filler; done += block.size())
            filler.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
    if (readOnly &&
        ::mount("tmpfs", dir.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, options.c_str()) != 0)
        error_ = QString("cannot remount read-only: %1").arg(std::strerror(errno));
}

TmpfsMount::~TmpfsMount() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
}

fs::path fullDevice(const fs::path& dir) {
    if (::geteuid() != 0) return "/dev/full";
    const fs::path node = dir / "full";
    ::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 7));
    return node;
}

std::string readText(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

void writeText(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

QStringList entriesOf(const fs::path& dir) {
    QStringList names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        names << QString::fromStdString(e.path().filename().string());
    names.sort();
    return names;
}

QString tachFixture(const QString& name) {
    return fixturePath("tach/" + name);
}

} // namespace gilscope::test
