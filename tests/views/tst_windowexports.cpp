// The window's exports and the details around them: dialogs that start in the last export's folder
// and name files after the run, images that hold what the panel shows (the host lane under the
// timeline, a warps chart tall enough to read, a comparison without a blank half), runs that stay
// apart, bar colours per scheduler, and settings that come back (the device) or go (Find's text).
#include "profile/profile_panel.h"
#include "runs/run_identity.h"
#include "schedules/compare_view.h"
#include "schedules/schedule_panel.h"
#include "timeline/timeline_panel.h"
#include "timeline/timeline_view.h"
#include "window/main_window.h"
#include "window/start_page.h"

#include "engine/catalog.h"
#include "engine/results/mapping_result.h"

#include <QAction>
#include <QComboBox>
#include <QImage>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <vector>

using opsched::MainWindow;

class TestWindowExports : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void exportsStartInTheLastFolderAndNameTheRun();
    void imagesHoldTheHostLaneTheWarpsAndNoBlankHalf();
    void identicalRunsStayApart();
    void everySchedulerHasItsOwnBarColour();
    void theDeviceComesBackAndTheProfilePanelFollowsIt();
    void findForgetsTheLastModelsText();
    void startPageListsDoNotScrollSideways();

private:
    static void run(MainWindow& w, const char* scheduler);
    static QAction* exportAction(MainWindow& w, const QString& text);
    QTemporaryDir dir_;
};

void TestWindowExports::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
}

void TestWindowExports::init()
{
    QSettings().clear();
}

void TestWindowExports::run(MainWindow& w, const char* scheduler)
{
    QSignalSpy done(w.schedulePanel(), &opsched::SchedulePanel::finished);
    w.schedulePanel()->runScheduler(QString::fromUtf8(scheduler));
    QVERIFY(done.wait(30000));
    QVERIFY(done.at(0).at(0).toBool());
}

QAction* TestWindowExports::exportAction(MainWindow& w, const QString& text)
{
    for (QAction* menu : w.menuBar()->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->menu())
                    for (QAction* e : a->menu()->actions())
                        if (e->text().remove(QLatin1Char('&')) == text)
                            return e;
    return nullptr;
}

void TestWindowExports::exportsStartInTheLastFolderAndNameTheRun()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    run(w, "greedy");
    QStringList suggested;
    QStringList answers { dir_.filePath(QStringLiteral("first.json")), dir_.filePath(QStringLiteral("trace.json")) };
    w.setSaveDialog([&](const QString&, const QString& path, const QString&) {
        suggested << path;
        return answers.isEmpty() ? QString() : answers.takeFirst();
    });
    QAction* schedule = exportAction(w, QStringLiteral("Schedule (JSON)..."));
    QAction* trace = exportAction(w, QStringLiteral("Chrome Trace..."));
    QVERIFY(schedule && trace);
    schedule->trigger();
    QCOMPARE(suggested.size(), 1);
    // Named after the run, as the other exports are, with the window's number for it.
    QVERIFY2(suggested[0].endsWith(QStringLiteral("squeezenet_greedy_sim-v100_b1_1.schedule.json")),
        qPrintable(suggested[0]));
    QVERIFY(QFile::exists(dir_.filePath(QStringLiteral("first.json"))));
    trace->trigger();
    QCOMPARE(suggested.size(), 2);
    // The next dialog starts where the last export went.
    QVERIFY2(suggested[1].startsWith(dir_.path() + QLatin1Char('/')), qPrintable(suggested[1]));
    QVERIFY(suggested[1].endsWith(QStringLiteral(".trace.json")));
    // ... also in the next session.
    MainWindow again;
    again.setInteractive(false);
    QVERIFY(again.openModel(QStringLiteral("zoo:squeezenet")));
    run(again, "ios");
    again.setSaveDialog([&](const QString&, const QString& path, const QString&) {
        suggested << path;
        return QString(); // cancelled
    });
    exportAction(again, QStringLiteral("Kernels (CSV)..."))->trigger();
    QVERIFY2(suggested.last().startsWith(dir_.path() + QLatin1Char('/')), qPrintable(suggested.last()));
}

void TestWindowExports::imagesHoldTheHostLaneTheWarpsAndNoBlankHalf()
{
    MainWindow w;
    w.setInteractive(false);
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    run(w, "ios");
    QCoreApplication::processEvents();
    QString answer;
    w.setSaveDialog([&](const QString&, const QString&, const QString&) { return answer; });
    auto exportImage = [&](const QString& menuText, const QString& name) {
        answer = dir_.filePath(name);
        exportAction(w, menuText)->trigger();
        QImage image(answer);
        return image;
    };
    const QImage timeline = exportImage(QStringLiteral("Timeline Image..."), QStringLiteral("timeline.png"));
    QVERIFY(!timeline.isNull());
    const int rows = w.timelineView()->fullSize().height();
    // The rows, then the host lane and the active warps (a chart at least 160 px tall), under a header.
    QVERIFY2(
        timeline.height() >= rows + 160, qPrintable(QStringLiteral("%1 < %2 + 160").arg(timeline.height()).arg(rows)));
    const QImage warps = exportImage(QStringLiteral("Active Warps Image..."), QStringLiteral("warps.png"));
    QVERIFY2(warps.height() >= 160, qPrintable(QString::number(warps.height())));
    w.compareView()->resize(600, 700); // a tall panel for one bar
    const QImage compare = exportImage(QStringLiteral("Comparison Image..."), QStringLiteral("compare.png"));
    QVERIFY(!compare.isNull());
    QCOMPARE(compare.height(), w.compareView()->imageHeight());
    QVERIFY2(compare.height() < 150, qPrintable(QString::number(compare.height())));
}

void TestWindowExports::identicalRunsStayApart()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    run(w, "greedy");
    run(w, "greedy");
    const auto* results = w.schedulePanel()->results();
    QCOMPARE(results->rowCount(), 2);
    const auto first = results->result(0), second = results->result(1);
    QCOMPARE(first->latency, second->latency); // the same run twice ...
    QVERIFY(opsched::runLabel(*first) != opsched::runLabel(*second)); // ... told apart everywhere
    QVERIFY(opsched::CompareView::barLabel(*first) != opsched::CompareView::barLabel(*second));
    QVERIFY(opsched::runFileStem(*first, {}) != opsched::runFileStem(*second, {}));
    QVERIFY2(opsched::runLabel(*second).endsWith(QStringLiteral(" · #2")), qPrintable(opsched::runLabel(*second)));
}

void TestWindowExports::everySchedulerHasItsOwnBarColour()
{
    std::vector<std::string> names = opsched::engine::schedulerNames();
    for (const auto& m : opsched::engine::mapperEntries())
        names.push_back(opsched::kMapperPrefix + m.name);
    for (std::size_t a = 0; a < names.size(); ++a)
        for (std::size_t b = a + 1; b < names.size(); ++b) {
            const QColor x = opsched::CompareView::schedulerColour(names[a]);
            const QColor y = opsched::CompareView::schedulerColour(names[b]);
            const int distance
                = std::abs(x.red() - y.red()) + std::abs(x.green() - y.green()) + std::abs(x.blue() - y.blue());
            QVERIFY2(distance >= 40, (names[a] + " and " + names[b]).c_str());
        }
    QCOMPARE(opsched::CompareView::schedulerColour("ios (edited)"), opsched::CompareView::schedulerColour("ios"));
}

void TestWindowExports::theDeviceComesBackAndTheProfilePanelFollowsIt()
{
    {
        MainWindow w;
        w.setInteractive(false);
        QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
        w.schedulePanel()
            ->findChild<QComboBox*>(QStringLiteral("deviceCombo"))
            ->setCurrentText(QStringLiteral("sim:h100"));
        run(w, "greedy");
        QCOMPARE(w.profilePanel()->findChild<QComboBox*>(QStringLiteral("profileDevice"))->currentText(),
            QStringLiteral("sim:h100"));
        // A mapper's list is remembered apart and is nothing the Profile panel can run on.
        auto* scheduler = w.schedulePanel()->findChild<QComboBox*>(QStringLiteral("schedulerCombo"));
        scheduler->setCurrentText(QStringLiteral("map:greedy"));
        w.schedulePanel()
            ->findChild<QComboBox*>(QStringLiteral("deviceCombo"))
            ->setCurrentText(QStringLiteral("sim:t4,sim:a100"));
        run(w, "map:greedy");
        QCOMPARE(w.profilePanel()->findChild<QComboBox*>(QStringLiteral("profileDevice"))->currentText(),
            QStringLiteral("sim:h100"));
    }
    MainWindow next;
    auto* device = next.schedulePanel()->findChild<QComboBox*>(QStringLiteral("deviceCombo"));
    QCOMPARE(device->currentText(), QStringLiteral("sim:h100"));
    next.schedulePanel()
        ->findChild<QComboBox*>(QStringLiteral("schedulerCombo"))
        ->setCurrentText(QStringLiteral("map:sa"));
    QCOMPARE(device->currentText(), QStringLiteral("sim:t4,sim:a100"));
}

void TestWindowExports::findForgetsTheLastModelsText()
{
    MainWindow w;
    w.setInteractive(false);
    QVERIFY(w.openModel(QStringLiteral("zoo:squeezenet")));
    auto* find = w.timelinePanel()->findChild<QLineEdit*>(QStringLiteral("timelineSearch"));
    QVERIFY(find);
    find->setText(QStringLiteral("fire9"));
    QVERIFY(w.openModel(QStringLiteral("zoo:inception_v3")));
    QVERIFY(find->text().isEmpty());
}

void TestWindowExports::startPageListsDoNotScrollSideways()
{
    MainWindow w;
    w.setInteractive(false);
    w.resize(700, 500);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    for (const char* name : { "startRecent", "startNetworks" }) {
        auto* list = w.startPage()->findChild<QListWidget*>(QString::fromLatin1(name));
        QVERIFY(list);
        QCOMPARE(list->horizontalScrollBar()->maximum(), 0);
    }
}

QTEST_MAIN(TestWindowExports)
#include "tst_windowexports.moc"
