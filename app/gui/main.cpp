// opsched: the desktop application. Everything but argument handling lives in opsched_views.
#include "dag_view.h"
#include "main_window.h"
#include "schedule_panel.h"
#include "timeline_view.h"
#include "warp_chart.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTabWidget>
#include <QEventLoop>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// `--screenshot FILE` runs without a display: pick the offscreen platform before Qt starts.
void preferOffscreenForScreenshots(int argc, char* argv[])
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--screenshot") == 0 && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY"))
            setenv("QT_QPA_PLATFORM", "offscreen", 0);
}

// Arranges the window to show what opsched is about: the DAG coloured by stage beside the
// schedules, and a timeline tall enough for every stream, zoomed so the op boxes carry names.
void stageForScreenshot(opsched::MainWindow& window)
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
        const opsched::TimeAxis axis(0.0, data->latency * 0.3, timeline->axis().width());
        timeline->setAxis(axis);
        window.warpChart()->setAxis(timeline->axis());
    }
}

// Opens the model, runs the scheduler, waits for it, and saves the window as a PNG.
int screenshot(opsched::MainWindow& window, const QString& model, const QString& scheduler, const QString& file)
{
    window.setInteractive(false);
    window.resize(1400, 900);
    window.show();
    if (!model.isEmpty()) {
        if (!window.openModel(model)) {
            std::fprintf(stderr, "opsched: %s\n", qPrintable(window.lastError()));
            return 1;
        }
        QEventLoop loop;
        bool ok = false;
        QObject::connect(window.schedulePanel(), &opsched::SchedulePanel::finished, &loop,
                         [&](bool success, const QString& message) {
                             ok = success;
                             if (!success)
                                 std::fprintf(stderr, "opsched: %s\n", qPrintable(message));
                             loop.quit();
                         });
        window.schedulePanel()->runScheduler(scheduler);
        loop.exec();
        if (!ok)
            return 1;
        stageForScreenshot(window);
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
    QApplication::setDesktopFileName(QStringLiteral("org.opsched.opsched")); // Wayland matches windows to the .desktop file

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Explore how the operators of a neural network can run concurrently on a GPU."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QStringLiteral("Model to open: zoo:NAME[?key=value&...] or a file."),
                                 QStringLiteral("[MODEL]"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"), QStringLiteral("Render the window with MODEL and a schedule to a PNG and exit."),
        QStringLiteral("file"));
    const QCommandLineOption schedulerOption(QStringLiteral("scheduler"),
                                             QStringLiteral("Scheduler for --screenshot (default: ios)."),
                                             QStringLiteral("name"), QStringLiteral("ios"));
    parser.addOption(screenshotOption);
    parser.addOption(schedulerOption);
    parser.process(app);

    opsched::MainWindow window;
    const QStringList args = parser.positionalArguments();
    if (parser.isSet(screenshotOption))
        return screenshot(window, args.value(0), parser.value(schedulerOption), parser.value(screenshotOption));

    window.show();
    // After show(), so an error dialog has its window to sit on.
    if (!args.isEmpty())
        window.openModel(args.first());
    return QApplication::exec();
}
