// gilscope info FILE.bin [--json]: what a Tachyon .bin recording holds — header,
// TACHSTAT statistics, table counts and record statistics (from a full decode).
#include "app/commands/cli_arguments.h"
#include "app/commands/cli_output.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "app/commands/record_interrupts.h"
#include "core/tach/tach_describe.h"
#include "core/tach/tach_info_json.h"
#include "core/tach/tach_reader.h"

#include <cstdio>
#include <filesystem>
#include <optional>

namespace gilscope::cli {

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kLargeSampleCount = 10'000'000; // about a second of decoding

// Decodes every record without keeping anything, to count record kinds.
struct DiscardSink final : SampleSink {
    void addBatch(const SampleBatch&) override {}
};

int runInfo(const QStringList& args) {
    CommandLine cli("info", "Show what a binary (.bin) recording holds.");
    QCommandLineParser& parser = cli.parser();
    parser.addPositionalArgument("input", "The .bin file.");
    const QCommandLineOption json("json",
                                  "Print JSON: CPython's get_info() keys plus \"reader_stats\".");
    const QCommandLineOption noDecode("no-decode",
                                      "Skip decoding the records (no record statistics).");
    parser.addOptions({json, noDecode});
    if (auto done = cli.parse(args)) return *done;
    if (parser.positionalArguments().size() != 1)
        return cli.usageErrorSeeHelp("expected one input file");
    const fs::path input = argumentPath(parser.positionalArguments()[0]);
    std::error_code ec;
    if (!fs::exists(input, ec))
        return fail(makeError(ErrorKind::Io, "Input file not found: " + input.string()));

    auto reader = TachReader::open(input);
    if (!reader) return fail(reader.error());
    const bool text = !parser.isSet(json);
    const InterruptGuard interrupts(FirstInterrupt::Cancels); // Ctrl-C stops a long decode
    // The header (and its sample count) first: decoding a large file takes a while.
    if (text) {
        std::printf("%s", tachInfoText(reader->info()).c_str());
        std::fflush(stdout);
    }
    std::optional<Error> decodeError;
    if (!parser.isSet(noDecode)) {
        if (reader->info().sampleCount >= kLargeSampleCount)
            std::fprintf(stderr,
                         "gilscope: decoding %llu samples to count the records (--no-decode "
                         "skips this; Ctrl-C stops it)\n",
                         static_cast<unsigned long long>(reader->info().sampleCount));
        DiscardSink sink;
        if (auto n = reader->replay(sink, {}, &interrupts.abortToken()); !n)
            decodeError = n.error();
    }

    if (!text) {
        nlohmann::ordered_json j = tachInfoJson(reader->info());
        if (!parser.isSet(noDecode)) j["reader_stats"] = tachReaderStatsJson(reader->recordStats());
        if (decodeError) j["decode_error"] = decodeError->message;
        std::printf("%s\n", j.dump(2).c_str());
    } else {
        if (!parser.isSet(noDecode) && !decodeError) {
            const TachRecordStats& s = reader->recordStats();
            std::printf(
                "Records:           %llu (full %llu, suffix %llu, pop-push %llu, repeat %llu "
                "holding %llu samples)\n",
                static_cast<unsigned long long>(s.totalRecords()),
                static_cast<unsigned long long>(s.fullRecords),
                static_cast<unsigned long long>(s.suffixRecords),
                static_cast<unsigned long long>(s.popPushRecords),
                static_cast<unsigned long long>(s.repeatRecords),
                static_cast<unsigned long long>(s.repeatSamples));
        }
    }
    if (decodeError) return fail(*decodeError);
    return 0;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(info, "info",
                          "Show the header, statistics and record counts of a .bin recording",
                          runInfo);

} // namespace gilscope::cli
