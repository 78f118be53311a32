// SpeedupWaterfall: bars from A's latency through each term to B's (data-driven levels), CSV,
// clicks selecting a term, and the Diff panel computing the breakdown of two timelines (one with
// its kernels merged and its launch gap removed) and exporting it as CSV, PNG and SVG.
#include "engine/timeline/timeline_breakdown.h"
#include "runs/run_compare_panel.h"
#include "runs/speedup_waterfall.h"
#include "timeline/timeline_view.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace opsched;

namespace {

constexpr double us = 1e-6;

struct K {
    std::uint32_t op;
    double start, end; // us
    std::string name = "Conv";
};

// One stream: an op row and its kernel row, a host row of launches.
std::shared_ptr<TimelineData> timeline(const std::vector<K>& kernels, const std::vector<HostCall>& host)
{
    auto d = std::make_shared<TimelineData>();
    StreamRowsBuilder rows(*d, { 0 });
    for (const K& k : kernels) {
        rows.addOp(0, k.start * us, k.end * us, k.op, 0);
        rows.addKernel(0, k.start * us, k.end * us, 0, TimelineKernel { k.name, k.op, 0, {} });
    }
    d->rows.finish();
    d->latency = d->rows.lastEnd();
    d->host = host;
    d->opLabels = { "a\nConv", "b\nConv" };
    return d;
}

analysis::SpeedupBreakdown breakdown()
{
    // A: two convolutions with a 5 us launch gap; B: one merged convolution of 12 us.
    const auto a = timeline({ { 0, 0, 10 }, { 1, 15, 25 } }, { { 10 * us, 15 * us, HostCallKind::Launch, 1 } });
    const auto b = timeline({ { 0, 0, 12, "MergedConv" } }, {});
    return explainTimelines(*a, *b);
}

} // namespace

class TestSpeedupWaterfall : public QObject {
    Q_OBJECT

private slots:
    void timelinesAreExplained();
    void barsStepFromAToB();
    void csvHasEveryTerm();
    void clickSelectsATerm();
    void withoutBreakdownSaysWhy();
    void panelShowsAndExports();
};

void TestSpeedupWaterfall::timelinesAreExplained()
{
    const analysis::SpeedupBreakdown r = breakdown();
    QCOMPARE(r.differenceNs, 13000.0);
    std::map<std::string, double> t;
    for (const auto& term : r.terms)
        t[term.key] = term.ns;
    QCOMPARE(t["only_a_kernels"], 20000.0);
    QCOMPARE(t["only_b_kernels"], -12000.0);
    QCOMPARE(t["launch_idle"], 5000.0);
    QCOMPARE(r.termSumNs(), r.differenceNs);
    QCOMPARE(QString::fromStdString(r.ops.front().op), QStringLiteral("b")); // lost 10 us; a lost -2
}

void TestSpeedupWaterfall::barsStepFromAToB()
{
    SpeedupWaterfall w;
    w.setBreakdown(breakdown());
    const auto bars = w.bars(QSize(800, 200));
    QCOMPARE(bars.size(), 10U); // A, eight terms, B
    QCOMPARE(bars.front().key, QStringLiteral("a"));
    QCOMPARE(bars.back().key, QStringLiteral("b"));
    QCOMPARE(bars.front().toMs, 0.025);
    QCOMPARE(bars.back().toMs, 0.012);
    for (std::size_t i = 1; i + 1 < bars.size(); ++i) {
        QCOMPARE(bars[i].fromMs, i == 1 ? 0.025 : bars[i - 1].toMs); // each term starts where the last ended
        QVERIFY(bars[i].rect.left() > bars[i - 1].rect.right()); // side by side, in order
        QVERIFY(bars[i].rect.height() >= 1.0); // a zero term is still a line
    }
    QVERIFY(std::abs(bars[bars.size() - 2].toMs - 0.012) < 1e-12); // the terms end at B's latency
    // Heights are to scale: A's bar is 25/12 of B's.
    QVERIFY(std::abs(bars.front().rect.height() / bars.back().rect.height() - 25.0 / 12.0) < 0.02);
}

void TestSpeedupWaterfall::csvHasEveryTerm()
{
    SpeedupWaterfall w;
    w.setBreakdown(breakdown());
    const QStringList lines = w.csv().trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 11); // header, A, eight terms, B
    QCOMPARE(lines.front(), QStringLiteral("term,label,ms,share"));
    QVERIFY(lines[1].startsWith(QStringLiteral("latency_a,")));
    QVERIFY(lines[1].endsWith(QStringLiteral(",0.025,")));
    QVERIFY(lines.filter(QStringLiteral("launch_idle,")).front().endsWith(QStringLiteral(",0.005,0.384615")));
    QVERIFY(lines.back().startsWith(QStringLiteral("latency_b,")));
}

void TestSpeedupWaterfall::clickSelectsATerm()
{
    SpeedupWaterfall w;
    w.resize(800, 200);
    w.setBreakdown(breakdown());
    QSignalSpy clicked(&w, &SpeedupWaterfall::termClicked);
    const auto bars = w.bars();
    const QRectF overlap = bars[4].rect; // A, shared, only A, only B, overlap
    QCOMPARE(bars[4].key, QStringLiteral("overlap"));
    QTest::mouseClick(&w, Qt::LeftButton, {}, overlap.center().toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.front().front().toString(), QStringLiteral("overlap"));
    QCOMPARE(w.selectedTerm(), QStringLiteral("overlap"));
    QImage image(800, 200, QImage::Format_ARGB32);
    QPainter p(&image);
    w.paintTo(p, image.size());
    p.end();
    // Painted: the A bar's colour at its centre.
    QVERIFY(image.pixelColor(bars.front().rect.center().toPoint()) != image.pixelColor(2, 2));
}

void TestSpeedupWaterfall::withoutBreakdownSaysWhy()
{
    SpeedupWaterfall w;
    w.setBreakdown(std::nullopt, QStringLiteral("no kernels"));
    QVERIFY(w.bars(QSize(400, 200)).empty());
    QCOMPARE(w.csv(), QStringLiteral("term,label,ms,share\n"));
    const auto a = timeline({ { 0, 0, 10 } }, {});
    auto empty = std::make_shared<TimelineData>();
    empty->latency = 1e-5;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, explainTimelines(*a, *empty));
}

void TestSpeedupWaterfall::panelShowsAndExports()
{
    RunComparePanel panel;
    panel.resize(1000, 700);
    panel.addRun(QStringLiteral("sequential"),
        timeline({ { 0, 0, 10 }, { 1, 15, 25 } }, { { 10 * us, 15 * us, HostCallKind::Launch, 1 } }));
    panel.addRun(QStringLiteral("merged"), timeline({ { 0, 0, 12, "MergedConv" } }, {}));
    QVERIFY(panel.waterfall()->hasBreakdown());
    QCOMPARE(panel.waterfall()->bars(QSize(800, 200)).back().toMs, 0.012);
    // A kernel term outlines the ops whose kernels it counts: A's two convolutions, B's merged one.
    QCOMPARE(panel.showTerm(QStringLiteral("only_a_kernels")), 2);
    QCOMPARE(panel.viewA()->matchCount(), 2);
    QCOMPARE(panel.viewB()->matchCount(), 0);
    QCOMPARE(panel.showTerm(QStringLiteral("only_b_kernels")), 1);
    QCOMPARE(panel.viewA()->matchCount(), 0);
    QCOMPARE(panel.showTerm(QStringLiteral("overlap")), 0); // not a kernel term: nothing outlined
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("b.csv")), png = dir.filePath(QStringLiteral("b.png")),
                  svg = dir.filePath(QStringLiteral("b.svg"));
    QCOMPARE(panel.exportBreakdown(csv), QString());
    QCOMPARE(panel.exportBreakdown(png), QString());
    QCOMPARE(panel.exportBreakdown(svg), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("only_a_kernels,"));
    QVERIFY(!QImage(png).isNull());
    QFile s(svg);
    QVERIFY(s.open(QIODevice::ReadOnly));
    QVERIFY(s.readAll().contains("<svg"));
    QVERIFY(!panel.exportBreakdown(dir.filePath(QStringLiteral("nodir/x.csv"))).isEmpty());
    panel.clearRuns();
    QVERIFY(!panel.waterfall()->hasBreakdown());
    QVERIFY(!panel.exportBreakdown(csv).isEmpty());
}

QTEST_MAIN(TestSpeedupWaterfall)
#include "tst_speedupwaterfall.moc"
