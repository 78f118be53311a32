// A page of a tab: a row of tools (a filter, a grouping, buttons) above what they act on.
#pragma once

class QLayout;
class QMargins;
class QWidget;

namespace opsched {

// A new widget holding `tools` above `content`, inside `margins`.
QWidget* toolRowPage(QLayout* tools, QWidget* content, const QMargins& margins);

} // namespace opsched
