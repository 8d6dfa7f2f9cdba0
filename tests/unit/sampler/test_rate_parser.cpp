// Table-driven check of -r/--sampling-rate against CPython's _parse_sampling_rate:
// regex ^(\d+(?:\.\d+)?)(hz|khz|k)?$ on the stripped, lower-cased text, interval =
// int(1_000_000 / hz), and its three error messages word for word.
#include "core/sampler/rate_parser.h"

#include <QTest>

using namespace gilscope;

namespace {
const char* kFormatTail = ". Expected: number followed by optional suffix (hz, khz, k) with no "
                          "spaces (e.g., 10khz)";
}

class TestRateParser : public QObject {
    Q_OBJECT
private slots:
    void accepts_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qulonglong>("intervalUs");
        QTest::newRow("1khz default") << "1khz" << 1000ull;
        QTest::newRow("10khz") << "10khz" << 100ull;
        QTest::newRow("10k") << "10k" << 100ull;
        QTest::newRow("500 bare Hz") << "500" << 2000ull;
        QTest::newRow("500hz") << "500hz" << 2000ull;
        QTest::newRow("1.5khz truncates") << "1.5khz" << 666ull;
        QTest::newRow("1hz") << "1hz" << 1000000ull;
        QTest::newRow("0.5hz") << "0.5hz" << 2000000ull;
        QTest::newRow("3 Hz truncates") << "3" << 333333ull;
        QTest::newRow("100khz") << "100khz" << 10ull;
        QTest::newRow("1000khz") << "1000khz" << 1ull;
        QTest::newRow("1000000") << "1000000" << 1ull;
        QTest::newRow("upper case") << "10KHZ" << 100ull;
        QTest::newRow("mixed case K") << "2K" << 500ull;
        QTest::newRow("outer spaces stripped") << "  10khz\t" << 100ull;
        QTest::newRow("leading zeros") << "007hz" << 142857ull;
    }
    void accepts() {
        QFETCH(QString, text);
        QFETCH(qulonglong, intervalUs);
        auto r = parseSamplingRate(text.toStdString());
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(qulonglong(r.value()), intervalUs);
    }

    void rejects_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const QString tail = QString::fromLatin1(kFormatTail);
        QTest::newRow("inner space") << "10 khz"
                                     << "Invalid sampling rate format: 10 khz" + tail;
        QTest::newRow("word") << "fast"
                              << "Invalid sampling rate format: fast" + tail;
        QTest::newRow("empty") << ""
                               << "Invalid sampling rate format: " + tail;
        QTest::newRow("negative") << "-10khz"
                                  << "Invalid sampling rate format: -10khz" + tail;
        QTest::newRow("plus sign") << "+10"
                                   << "Invalid sampling rate format: +10" + tail;
        QTest::newRow("bad suffix") << "10mhz"
                                    << "Invalid sampling rate format: 10mhz" + tail;
        QTest::newRow("dot only") << "1."
                                  << "Invalid sampling rate format: 1." + tail;
        QTest::newRow("leading dot") << ".5khz"
                                     << "Invalid sampling rate format: .5khz" + tail;
        QTest::newRow("exponent") << "1e3"
                                  << "Invalid sampling rate format: 1e3" + tail;
        QTest::newRow("lowered in message") << " 10 KHz "
                                            << "Invalid sampling rate format: 10 khz" + tail;
        QTest::newRow("zero") << "0"
                              << "Sampling rate must be positive: 0";
        QTest::newRow("zero khz") << "0khz"
                                  << "Sampling rate must be positive: 0khz";
        QTest::newRow("zero point zero") << "0.0HZ"
                                         << "Sampling rate must be positive: 0.0hz";
        QTest::newRow("too high") << "2000khz"
                                  << "Sampling rate too high: 2000khz";
        QTest::newRow("too high bare") << "1000001"
                                       << "Sampling rate too high: 1000001";
    }
    void rejects() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        auto r = parseSamplingRate(text.toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error().message), message);
        QCOMPARE(r.error().kind, ErrorKind::BadArguments);
    }
};

QTEST_GUILESS_MAIN(TestRateParser)
#include "test_rate_parser.moc"
