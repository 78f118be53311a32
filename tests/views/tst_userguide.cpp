// Help > User Guide: the docs folder is found from a build tree inside the source, or from
// $OPSCHED_DOCS; the guide renders its Markdown and follows links between pages.
#include "window/user_guide.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>

class TestUserGuide : public QObject {
    Q_OBJECT
private slots:
    void findsTheSourceDocsFromTheBuildTree();
    void environmentWinsAndMustHoldTheGuide();
    void rendersMarkdownAndFollowsLinks();
    void goesBackAndScalesPicturesToTheWindow();
};

void TestUserGuide::findsTheSourceDocsFromTheBuildTree()
{
    qunsetenv("OPSCHED_DOCS");
    // The test runs in build/tests/views, under the source tree.
    const QString docs = opsched::findDocsFolder(QCoreApplication::applicationDirPath());
    QVERIFY2(!docs.isEmpty(), qPrintable(QCoreApplication::applicationDirPath()));
    QVERIFY(QFile::exists(QDir(docs).filePath(QStringLiteral("gui.md"))));
    QVERIFY(QFile::exists(QDir(docs).filePath(QStringLiteral("mapping.md"))));
    // Nothing above a folder without docs.
    QTemporaryDir empty;
    QCOMPARE(opsched::findDocsFolder(empty.path()), QString());
}

void TestUserGuide::environmentWinsAndMustHoldTheGuide()
{
    QTemporaryDir dir;
    qputenv("OPSCHED_DOCS", dir.path().toUtf8());
    QCOMPARE(opsched::findDocsFolder(QCoreApplication::applicationDirPath()), QString()); // no gui.md there
    QFile guide(QDir(dir.path()).filePath(QStringLiteral("gui.md")));
    QVERIFY(guide.open(QIODevice::WriteOnly));
    guide.write("# Guide\n");
    guide.close();
    QCOMPARE(opsched::findDocsFolder(QStringLiteral("/")), QDir(dir.path()).absolutePath());
    qunsetenv("OPSCHED_DOCS");
}

void TestUserGuide::rendersMarkdownAndFollowsLinks()
{
    QTemporaryDir dir;
    auto write = [&](const char* name, const char* text) {
        QFile f(QDir(dir.path()).filePath(QString::fromUtf8(name)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    };
    write("gui.md", "# The window\n\nSee [mapping](mapping.md) for **devices**.\n");
    write("mapping.md", "# Mapping a model\n\nDiviML's mappers.\n");
    opsched::UserGuide guide(dir.path(), QStringLiteral("gui.md"));
    QTextBrowser* browser = guide.browser();
    QVERIFY(browser->toPlainText().contains(QStringLiteral("The window")));
    QVERIFY(!browser->toPlainText().contains(QStringLiteral("**"))); // Markdown, not raw text
    browser->setSource(QUrl(QStringLiteral("mapping.md")), QTextDocument::MarkdownResource);
    QVERIFY2(browser->toPlainText().contains(QStringLiteral("Mapping a model")), qPrintable(browser->toPlainText()));
}

void TestUserGuide::goesBackAndScalesPicturesToTheWindow()
{
    QTemporaryDir dir;
    QImage wide(2400, 300, QImage::Format_RGB32);
    wide.fill(Qt::darkCyan);
    QVERIFY(wide.save(QDir(dir.path()).filePath(QStringLiteral("wide.png"))));
    QFile gui(QDir(dir.path()).filePath(QStringLiteral("gui.md")));
    QVERIFY(gui.open(QIODevice::WriteOnly));
    gui.write("# The window\n\n![a screenshot](wide.png)\n\nSee [mapping](mapping.md).\n");
    gui.close();
    QFile mapping(QDir(dir.path()).filePath(QStringLiteral("mapping.md")));
    QVERIFY(mapping.open(QIODevice::WriteOnly));
    mapping.write("# Mapping a model\n");
    mapping.close();

    opsched::UserGuide guide(dir.path(), QStringLiteral("gui.md"));
    const QImage shown
        = guide.browser()->loadResource(QTextDocument::ImageResource, QUrl(QStringLiteral("wide.png"))).value<QImage>();
    QVERIFY(!shown.isNull());
    // Scaled to the dialog's page before it is shown, not to a browser not laid out yet (640 px).
    QVERIFY2(shown.width() <= guide.width() && shown.width() > 700,
        qPrintable(QStringLiteral("%1 px in a %2 px dialog").arg(shown.width()).arg(guide.width())));
    guide.show();
    QVERIFY(QTest::qWaitForWindowExposed(&guide));
    const QImage laidOut
        = guide.browser()->loadResource(QTextDocument::ImageResource, QUrl(QStringLiteral("wide.png"))).value<QImage>();
    QVERIFY2(laidOut.width() <= guide.browser()->viewport()->width(),
        qPrintable(
            QStringLiteral("%1 px in a %2 px page").arg(laidOut.width()).arg(guide.browser()->viewport()->width())));
    QVERIFY(!guide.backButton()->isEnabled());
    guide.browser()->setSource(QUrl(QStringLiteral("mapping.md")), QTextDocument::MarkdownResource);
    QVERIFY(guide.backButton()->isEnabled());
    guide.backButton()->click();
    QVERIFY(guide.browser()->toPlainText().contains(QStringLiteral("The window")));
}

QTEST_MAIN(TestUserGuide)
#include "tst_userguide.moc"
