#pragma once

// What the output and hostile-input tests need beside running gilscope: small tmpfs
// mounts (a full disk, a read-only directory) and private device nodes, so the tests
// never touch the machine's own /dev/full or /dev/stdout.

#include <QString>
#include <QStringList>

#include <filesystem>
#include <string>

namespace gilscope::test {

// A tmpfs of `bytes` mounted on `dir` (created) while it lives; root only. With
// fillTo > 0 a filler file leaves only `bytes - fillTo` free. readOnly mounts it
// read-only. mounted() is false when the mount was refused (not root).
class TmpfsMount {
public:
    TmpfsMount(const std::filesystem::path& dir, size_t bytes, bool readOnly = false,
               size_t fillTo = 0);
    ~TmpfsMount();
    TmpfsMount(const TmpfsMount&) = delete;
    TmpfsMount& operator=(const TmpfsMount&) = delete;
    bool mounted() const { return mounted_; }
    QString error() const { return error_; }

private:
    std::filesystem::path dir_;
    bool mounted_ = false;
    QString error_;
};

// A character device that behaves as /dev/full (1, 7) inside `dir` when we are root
// (mknod), else /dev/full itself (which a non-root gilscope cannot replace anyway).
std::filesystem::path fullDevice(const std::filesystem::path& dir);

std::string readText(const std::filesystem::path& p);
void writeText(const std::filesystem::path& p, const std::string& text);
// Every entry of dir, hidden ones too, sorted.
QStringList entriesOf(const std::filesystem::path& dir);

// The path of a ../shared/fixtures/tach file.
QString tachFixture(const QString& name);

} // namespace gilscope::test
