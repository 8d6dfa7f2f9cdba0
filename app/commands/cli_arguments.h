#pragma once

// Arguments are bytes and may name files that are not valid UTF-8; the subcommands parse
// QStrings. Decoding with surrogateescape (as Python does) and encoding back gives each
// such argument's exact bytes, where QCoreApplication::arguments() would turn them into
// U+FFFD and a path could no longer be opened or created.

#include "core/util/utf8.h"

#include <QString>
#include <QStringList>

#include <filesystem>
#include <string>

namespace gilscope::cli {

inline QStringList decodeArguments(int argc, char** argv) {
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromStdU16String(decodeUtf8SurrogateEscape(argv[i]));
    return args;
}

// The bytes of an argument (or a part of one) as the user gave them.
inline std::string argumentBytes(const QString& arg) {
    return encodeUtf8SurrogateEscape(arg.toStdU16String());
}

inline std::filesystem::path argumentPath(const QString& arg) {
    return std::filesystem::path(argumentBytes(arg));
}

} // namespace gilscope::cli
