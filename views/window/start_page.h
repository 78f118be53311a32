// What an empty window shows: how to begin (open a file, drop one, pick a built-in network) and
// the recent files, each one click away.
#pragma once

#include <QWidget>

class QListWidget;

namespace opsched {

class StartPage : public QWidget {
    Q_OBJECT

public:
    explicit StartPage(QWidget* parent = nullptr);
    void setRecentFiles(const QStringList& refs);
    QListWidget* recentList() const { return recent_; }
    QListWidget* networkList() const { return networks_; }

signals:
    void openRequested(const QString& ref); // a recent file or zoo:NAME
    void openDialogRequested();

private:
    QListWidget* recent_ = nullptr;
    QListWidget* networks_ = nullptr;
};

// How a model is named in the title and status bar: the graph's name, except that a file called
// model.onnx (as exported models often are) is named by its folder ("resnet50/model.onnx" ->
// "resnet50").
QString modelDisplayName(const QString& ref, const QString& graphName);

} // namespace opsched
