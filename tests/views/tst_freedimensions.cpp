// askFreeDimensions without a person at the window (scripted runs, tests): the shapes remembered
// for the file, at the batch the model is opened at, or an error naming the free inputs.
#include "window/free_dimensions.h"

#include <QCoreApplication>
#include <QTemporaryDir>
#include <QTest>

using namespace opsched;

class TestFreeDimensions : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // Settings of this test only, never the user's.
        QVERIFY(settingsDir_.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("opsched-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_freedimensions"));
        qputenv("XDG_CONFIG_HOME", settingsDir_.path().toUtf8());
    }

    void withoutRememberedShapesTheInputsAreNamed()
    {
        const QString path = settingsDir_.filePath(QStringLiteral("a/model.onnx"));
        rememberFreeDimensions(path, {});
        QString error;
        const auto shapes = askFreeDimensions(nullptr, path, inputs(), 1, false, &error);
        QVERIFY(!shapes);
        QVERIFY2(error.contains(QStringLiteral("image (1x3xheightxwidth)")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("--shape")), qPrintable(error));
    }

    void rememberedShapesAreUsedAtTheBatchAsked()
    {
        const QString path = settingsDir_.filePath(QStringLiteral("b/model.onnx"));
        rememberFreeDimensions(path, QStringLiteral("image=1x3x96x64; mask=1x96"));
        QString error;
        const auto shapes = askFreeDimensions(nullptr, path, inputs(), 4, false, &error);
        QVERIFY2(shapes.has_value(), qPrintable(error));
        QCOMPARE(shapes->size(), std::size_t { 2 });
        QCOMPARE(shapes->at("image"), (std::vector<std::int64_t> { 4, 3, 96, 64 }));
        QCOMPARE(shapes->at("mask"), (std::vector<std::int64_t> { 4, 96 }));
        // Per file: another file has none.
        QVERIFY(!askFreeDimensions(
            nullptr, settingsDir_.filePath(QStringLiteral("c/model.onnx")), inputs(), 1, false, &error));
    }

    void aDamagedRememberedTextIsNamed()
    {
        const QString path = settingsDir_.filePath(QStringLiteral("d/model.onnx"));
        rememberFreeDimensions(path, QStringLiteral("image=1x3xWx4"));
        QString error;
        QVERIFY(!askFreeDimensions(nullptr, path, inputs(), 1, false, &error));
        QVERIFY2(error.contains(QStringLiteral("'W' is not a dimension")), qPrintable(error));
    }

private:
    static std::vector<FreeInput> inputs() { return { { "image", "1x3xheightxwidth", "1x3xHEIGHTxWIDTH" } }; }
    QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestFreeDimensions)
#include "tst_freedimensions.moc"
