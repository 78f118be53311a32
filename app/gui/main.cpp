// opsched: the desktop application. Everything but argument handling lives in opsched_views.
#include "main_window.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char* argv[])
{
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
    parser.process(app);

    opsched::MainWindow window;
    window.show();
    // After show(), so an error dialog has its window to sit on.
    if (const QStringList args = parser.positionalArguments(); !args.isEmpty())
        window.openModel(args.first());
    return QApplication::exec();
}
