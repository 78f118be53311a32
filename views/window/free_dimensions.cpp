#include "window/free_dimensions.h"

#include "util/error.h"

#include <QDir>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QSettings>
#include <QStringList>

namespace opsched {
namespace {

QString settingsKey(const QString& path)
{
    // One key per file: QSettings treats '/' as groups, so the path is hex-encoded.
    return QStringLiteral("freeDimensions/") + QString::fromLatin1(QFileInfo(path).absoluteFilePath().toUtf8().toHex());
}

// "a=1x3x224x224; b=1x128" -> shapes at `batch`; throws Error naming the part that does not parse.
InputShapes parseShapes(const QString& text, std::int64_t batch)
{
    InputShapes shapes;
    for (const QString& part : text.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const QString spec = part.trimmed();
        if (!spec.isEmpty())
            engine::addShapeSpec(shapes, spec.toStdString());
    }
    if (shapes.empty())
        throw Error("no shapes given");
    for (auto& [name, dims] : shapes)
        dims.front() = batch;
    return shapes;
}

} // namespace

std::optional<InputShapes> askFreeDimensions(QWidget* parent, const QString& path, const std::vector<FreeInput>& inputs,
    std::int64_t batch, bool interactive, QString* error)
{
    const QString remembered = QSettings().value(settingsKey(path)).toString();
    if (!interactive) {
        try {
            if (!remembered.isEmpty())
                return parseShapes(remembered, batch);
        } catch (const Error& e) {
            *error = QString::fromStdString(e.what());
            return std::nullopt;
        }
        QStringList names;
        for (const auto& in : inputs)
            names << QString::fromStdString(in.name + " (" + in.declared + ")");
        *error = QObject::tr("%1 has free input dimensions: %2; give them when opening it (opsched-cli: --shape)")
                     .arg(QFileInfo(path).fileName(), names.join(QStringLiteral(", ")));
        return std::nullopt;
    }
    QStringList lines, suggestion;
    for (const auto& in : inputs) {
        lines << QString::fromStdString("  " + in.name + ": " + in.declared);
        suggestion << QString::fromStdString(in.name + "=" + in.example);
    }
    QString text = remembered.isEmpty() ? suggestion.join(QStringLiteral("; ")) : remembered;
    for (;;) {
        bool ok = false;
        text = QInputDialog::getText(parent, QObject::tr("Free input dimensions"),
            QObject::tr("%1 leaves input sizes open:\n%2\n\nGive each input's shape as NAME=DxDx... (separate "
                        "inputs with ';'); dimension 0 is the batch (%3, set in the Schedules panel).")
                .arg(QDir::toNativeSeparators(path), lines.join(QLatin1Char('\n')))
                .arg(batch),
            QLineEdit::Normal, text, &ok);
        if (!ok) {
            *error = QObject::tr("cancelled: no input shapes given");
            return std::nullopt;
        }
        try {
            return parseShapes(text, batch);
        } catch (const Error& e) {
            QMessageBox::warning(parent, QObject::tr("Free input dimensions"), QString::fromStdString(e.what()));
        }
    }
}

void rememberFreeDimensions(const QString& path, const QString& text)
{
    QSettings settings;
    if (text.isEmpty())
        settings.remove(settingsKey(path));
    else
        settings.setValue(settingsKey(path), text);
}

} // namespace opsched
