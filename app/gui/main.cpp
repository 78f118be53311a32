// opsched: the desktop application. Everything but argument handling lives in opsched_views.
#include "dag/dag_view.h"
#include "schedules/schedule_panel.h"
#include "timeline/timeline_view.h"
#include "timeline/warp_chart.h"
#include "window/main_window.h"

#include "engine/device_ref.h"
#include "engine/limits.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

namespace {

// `--screenshot FILE` runs without a display: pick the offscreen platform before Qt starts.
void preferOffscreenForScreenshots(int argc, char* argv[])
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--screenshot") == 0 && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY"))
            setenv("QT_QPA_PLATFORM", "offscreen", 0);
}

// Arranges the window to show what opsched is about: the DAG coloured by stage beside the
// schedules, and a timeline tall enough for every stream, zoomed so the op boxes carry names; or,
// given a range (fractions of the run), the whole run with that range selected and measured.
void stageForScreenshot(opsched::MainWindow& window, std::optional<std::pair<double, double>> range)
{
    if (auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("centralTabs")))
        tabs->setCurrentWidget(window.dagView());
    if (window.dagView()->isLayingOut()) {
        QEventLoop wait;
        QObject::connect(window.dagView(), &opsched::DagView::layoutReady, &wait, &QEventLoop::quit);
        QTimer::singleShot(10000, &wait, &QEventLoop::quit);
        wait.exec();
    }
    QApplication::processEvents(); // the window's first-start dock sizes
    window.dagView()->fitToView();
    // Inception is tall and narrow: magnify its first cells so boxes and edges can be told apart.
    window.dagView()->zoomBy(2.0, QPointF(window.dagView()->width() / 2.0, 0.0));
    opsched::TimelineView* timeline = window.timelineView();
    if (const opsched::TimelineData* data = timeline->data()) {
        if (range) {
            timeline->resetZoom();
            timeline->setSelection(range->first * data->latency, range->second * data->latency);
            if (auto* flows = window.findChild<QCheckBox*>(QStringLiteral("showFlows")))
                flows->setChecked(true);
            return;
        }
        const opsched::TimeAxis axis(0.0, data->latency * 0.3, timeline->axis().width());
        timeline->setAxis(axis);
        window.warpChart()->setAxis(timeline->axis());
    }
}

// "0.2,0.45" -> the range; nothing for anything else.
std::optional<std::pair<double, double>> parseRange(const QString& text)
{
    const QStringList parts = text.split(QLatin1Char(','));
    if (parts.size() != 2)
        return std::nullopt;
    bool ok0 = false, ok1 = false;
    const double a = parts[0].toDouble(&ok0), b = parts[1].toDouble(&ok1);
    if (!ok0 || !ok1 || a < 0 || b > 1 || a >= b)
        return std::nullopt;
    return std::make_pair(a, b);
}

// Opens the model, runs the scheduler (or reads the mapping file), waits for it, and saves the
// window as a PNG.
int screenshot(opsched::MainWindow& window, const QString& model, const QString& scheduler, const QString& device,
    const QString& mapping, std::optional<std::pair<double, double>> range, const QString& file)
{
    window.setInteractive(false);
    window.resize(1400, 900);
    window.show();
    if (!model.isEmpty()) {
        if (!window.openModel(model)) {
            std::fprintf(stderr, "opsched: %s\n", qPrintable(window.lastError()));
            return 1;
        }
        if (!mapping.isEmpty()) {
            if (!window.openMappingFile(mapping)) {
                std::fprintf(stderr, "opsched: %s\n", qPrintable(window.lastError()));
                return 1;
            }
            stageForScreenshot(window, range);
        }
    }
    if (!model.isEmpty() && mapping.isEmpty()) {
        QEventLoop loop;
        bool ok = false;
        QObject::connect(window.schedulePanel(), &opsched::SchedulePanel::finished, &loop,
            [&](bool success, const QString& message) {
                ok = success;
                if (!success)
                    std::fprintf(stderr, "opsched: %s\n", qPrintable(message));
                loop.quit();
            });
        if (auto* devices = window.schedulePanel()->findChild<QComboBox*>(QStringLiteral("deviceCombo"))) {
            // Any device the CLI takes (the panel resolves it through the engine and says what is
            // wrong with one); a name that does not even parse is a usage error.
            try {
                (void)opsched::engine::parseDeviceList(device.toStdString());
            } catch (const std::exception& e) {
                std::fprintf(stderr, "opsched: unknown device %s: %s\n", qPrintable(device), e.what());
                return 2;
            }
            devices->setCurrentText(device);
        }
        if (auto* schedulers = window.schedulePanel()->findChild<QComboBox*>(QStringLiteral("schedulerCombo")))
            schedulers->setCurrentText(scheduler); // the panel shows what ran
        window.schedulePanel()->runScheduler(scheduler);
        loop.exec();
        if (!ok)
            return 1;
        stageForScreenshot(window, range);
    }
    QTimer::singleShot(0, [] {}); // let pending layout and paint events run
    QApplication::processEvents();
    if (!window.grab().save(file)) {
        std::fprintf(stderr, "opsched: cannot write %s\n", qPrintable(file));
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char* argv[])
{
    preferOffscreenForScreenshots(argc, argv);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("opsched"));
    QApplication::setApplicationName(QStringLiteral("opsched"));
    QApplication::setApplicationVersion(QStringLiteral(OPSCHED_VERSION));
    QApplication::setDesktopFileName(
        QStringLiteral("org.opsched.opsched")); // Wayland matches windows to the .desktop file

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Explore how the operators of a neural network can run concurrently on a GPU."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"),
        QStringLiteral("Model to open: zoo:NAME[?key=value&...] or a file."), QStringLiteral("[MODEL]"));
    const QCommandLineOption screenshotOption(QStringLiteral("screenshot"),
        QStringLiteral("Render the window with MODEL and a schedule to a PNG and exit."), QStringLiteral("file"));
    const QCommandLineOption schedulerOption(QStringLiteral("scheduler"),
        QStringLiteral("Scheduler for --screenshot (default: ios)."), QStringLiteral("name"), QStringLiteral("ios"));
    const QCommandLineOption deviceOption(QStringLiteral("device"),
        QStringLiteral("Device for --screenshot (default: %1), as opsched-cli's --device takes it; for a "
                       "map:NAME scheduler a comma list, e.g. cpu:0,cpu:1.")
            .arg(QLatin1String(opsched::engine::kDefaultDevice)),
        QStringLiteral("sim:NAME"), QString::fromLatin1(opsched::engine::kDefaultDevice));
    const QCommandLineOption selectOption(QStringLiteral("select"),
        QStringLiteral("For --screenshot: show the whole run with the range A,B (fractions of it, e.g. 0.2,0.45) "
                       "selected, and its flows."),
        QStringLiteral("A,B"));
    parser.addOption(screenshotOption);
    parser.addOption(schedulerOption);
    parser.addOption(deviceOption);
    const QCommandLineOption mappingOption(QStringLiteral("mapping"),
        QStringLiteral("Open a mapping file (opsched-cli map -o) for MODEL; with --screenshot, show it instead of "
                       "running a scheduler."),
        QStringLiteral("file"));
    parser.addOption(selectOption);
    parser.addOption(mappingOption);
    parser.process(app);
    std::optional<std::pair<double, double>> range;
    if (parser.isSet(selectOption)) {
        range = parseRange(parser.value(selectOption));
        if (!range) {
            std::fprintf(stderr, "opsched: --select takes two fractions A,B with 0 <= A < B <= 1, not '%s'\n",
                qPrintable(parser.value(selectOption)));
            return 2;
        }
    }

    opsched::MainWindow window;
    const QStringList args = parser.positionalArguments();
    if (parser.isSet(screenshotOption))
        return screenshot(window, args.value(0), parser.value(schedulerOption), parser.value(deviceOption),
            parser.value(mappingOption), range, parser.value(screenshotOption));

    window.show();
    // After show(), so an error dialog has its window to sit on.
    if (!args.isEmpty() && window.openModel(args.first()) && parser.isSet(mappingOption))
        window.openMappingFile(parser.value(mappingOption));
    return QApplication::exec();
}
